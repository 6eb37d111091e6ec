/**
 * Attack tests for protected paths in the sandbox (SECURITY.md): from sandboxed bash, as root,
 * nothing the host later trusts or executes can be changed or created — `.git/config`
 * (`core.fsmonitor`), git hooks, `dsh.jsonc`, `.dsh/sessions`, editor settings, plugin files —
 * while git's read commands keep working and no placeholder is left in the workspace.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { bwrapArgs, createSandboxExecutor } from "../../builtins/sandbox.ts";
import { holdPlaceholders, protectedMounts } from "../../builtins/_protected_mounts.ts";
import { runBwrap } from "./_sandbox_helpers.ts";
import { ProtectedPaths } from "../../builtins/protected_paths.ts";
import type { LocalExecutor } from "../../builtins/local_executor.ts";
import { tempDir } from "../_helpers.ts";

const decoder = new TextDecoder();

async function run(executor: LocalExecutor, command: string, cwd: string) {
  let out = "";
  const result = await executor.run(command, {
    cwd,
    onOutput: (chunk) => void (out += decoder.decode(chunk)),
  });
  return { code: result.exitCode, out };
}

async function git(dir: string, ...args: string[]): Promise<string> {
  const output = await new Deno.Command("git", {
    args: ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return decoder.decode(output.stdout) + decoder.decode(output.stderr);
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (path: string, rel: string) => {
    for await (const entry of Deno.readDir(path)) {
      const full = join(path, entry.name);
      const name = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const info = await Deno.lstat(full);
      if (info.isSymlink) out[name] = `link:${await Deno.readLink(full)}`;
      else if (info.isDirectory) {
        out[name] = "dir";
        await walk(full, name);
      } else out[name] = await Deno.readTextFile(full);
    }
  };
  await walk(dir, "");
  return out;
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("attack: sandboxed bash cannot change .git, dsh.jsonc, .dsh or a plugin file (as root)", async () => {
  await using ws = await tempDir();
  await git(ws.path, "init", "-q");
  await Deno.writeTextFile(join(ws.path, "dsh.jsonc"), '{ "sandbox": "workspace-write" }\n');
  await Deno.mkdir(join(ws.path, ".dsh/sessions"), { recursive: true });
  await Deno.writeTextFile(join(ws.path, ".dsh/sessions/s.jsonl"), "{}\n");
  await Deno.mkdir(join(ws.path, "tools/nested"), { recursive: true });
  await Deno.writeTextFile(join(ws.path, "tools/nested/plugin.ts"), "export const ok = 1;\n");
  await Deno.writeTextFile(join(ws.path, "a.txt"), "one\n");
  await git(ws.path, "add", ".");
  await git(ws.path, "commit", "-qm", "first");
  await Deno.writeTextFile(join(ws.path, "a.txt"), "two\n");
  const protectedPaths = new ProtectedPaths([ws.path]);
  const executor = await createSandboxExecutor({ workspace: ws.path, protectedPaths });
  // Set after the executor exists: the list is read at every spawn.
  protectedPaths.set("plugin:p", [{
    path: join(ws.path, "tools/nested/plugin.ts"),
    reason: "a plugin file",
  }]);
  const gitDir = await snapshot(join(ws.path, ".git"));
  const before = await snapshot(ws.path);
  const attacks = [
    "git config core.fsmonitor 'touch /tmp/pwned' && echo fsmonitor-set",
    "printf '[core]\\n\\tfsmonitor = touch /pwned\\n' >> .git/config && echo config-appended",
    "echo 'touch /pwned' > .git/hooks/pre-commit && echo hook-written",
    "mv .git .git-old && echo git-moved",
    "echo '{}' > dsh.jsonc && echo config-written",
    "mv dsh.jsonc x.jsonc && echo config-moved",
    "rm -rf .dsh/sessions; ln -s /tmp .dsh/sessions && echo sessions-linked",
    "mv .dsh .dsh-old && echo dsh-moved",
    "echo 'evil' > tools/nested/plugin.ts && echo plugin-written",
    "mv tools/nested/plugin.ts tools/nested/old.ts && echo plugin-moved",
    "mv tools/nested tools/old && echo folder-moved",
    "mv tools tools-old && mkdir -p tools/nested && echo evil > tools/nested/plugin.ts && echo plugin-planted",
  ];
  const { out } = await run(executor, attacks.join("\n"), ws.path);
  ok(!/fsmonitor-set|appended|written|moved|linked|planted/.test(out), out);
  match(out, /Read-only file system/);
  deepEqual(await snapshot(join(ws.path, ".git")), gitDir);
  deepEqual(await snapshot(ws.path), before);
  // Reading git works; committing fails, saying why.
  const reads = await run(
    executor,
    "git status --short; git log --oneline | wc -l; git diff --stat",
    ws.path,
  );
  match(reads.out, /^ M a\.txt$/m);
  match(reads.out, /^1$/m);
  match(reads.out, /1 file changed/);
  const commit = await run(executor, "git commit -qam second", ws.path);
  ok(commit.code !== 0, commit.out);
  match(commit.out, /index\.lock.*Read-only file system/);
  // Everything else in the workspace stays writable, new top-level files included.
  const write = await run(
    executor,
    "echo ok > new.txt && echo x >> a.txt && mkdir -p src && echo y > src/b.ts",
    ws.path,
  );
  equal(write.code, 0, write.out);
  equal(await Deno.readTextFile(join(ws.path, "new.txt")), "ok\n");
});

Deno.test("attack: sandboxed bash cannot create a missing dsh.jsonc, .git, .zed or plugin file, and no placeholder stays", async () => {
  await using ws = await tempDir();
  const protectedPaths = new ProtectedPaths([ws.path]);
  protectedPaths.set("plugin:p", [{
    path: join(ws.path, "plugins/p.ts"),
    reason: "a plugin file",
  }]);
  const executor = await createSandboxExecutor({ workspace: ws.path, protectedPaths });
  const attacks = [
    "echo '{}' > dsh.jsonc && echo config-created",
    "git init -q && echo git-created",
    "mkdir -p .git/hooks && echo 'touch /pwned' > .git/hooks/post-checkout && echo hook-created",
    "mkdir -p .zed && echo '{}' > .zed/settings.json && echo zed-created",
    "mkdir -p .vscode && echo '{}' > .vscode/tasks.json && echo vscode-created",
    "mkdir -p .dsh && ln -s /tmp .dsh/sessions && echo sessions-created",
    "mkdir -p plugins && echo evil > plugins/p.ts && echo plugin-created",
    "echo fine > ok.txt",
  ];
  const { out } = await run(executor, attacks.join("\n"), ws.path);
  ok(!/-created/.test(out), out);
  deepEqual(await listing(ws.path), ["ok.txt"]);
  equal(await Deno.readTextFile(join(ws.path, "ok.txt")), "fine\n");
});

Deno.test("attack: a placeholder another run still holds stays in place when a shorter run ends", async () => {
  await using ws = await tempDir();
  const executor = await createSandboxExecutor({ workspace: ws.path });
  const go = join(ws.path, "go");
  const long = run(
    executor,
    `while [ ! -e ${go} ]; do sleep 0.05; done; echo '{}' > dsh.jsonc && echo config-created; ls -A`,
    ws.path,
  );
  // The short run ends while the long one waits with its placeholders mounted.
  const short = await run(executor, "ls -A", ws.path);
  equal(short.code, 0, short.out);
  await Deno.writeTextFile(go, "");
  const { out } = await long;
  ok(!out.includes("config-created"), out);
  deepEqual(await listing(ws.path), ["go"]);
});

Deno.test("attack: a worktree's .git pointer protects the git dir it names when that is writable", async () => {
  await using ws = await tempDir();
  const main = join(ws.path, "main");
  await Deno.mkdir(main);
  await git(main, "init", "-q");
  await git(main, "commit", "-q", "--allow-empty", "-m", "first");
  await git(main, "worktree", "add", "-q", join(ws.path, "wt"));
  // Only the worktree is protected by name; the main repository is just another folder here.
  const protectedPaths = new ProtectedPaths([join(ws.path, "wt")]);
  const executor = await createSandboxExecutor({ workspace: ws.path, protectedPaths });
  const before = await snapshot(join(main, ".git"));
  const { out } = await run(
    executor,
    "git config core.fsmonitor 'touch /pwned' && echo fsmonitor-set; echo x > ../main/.git/hooks/pre-commit && echo hook-written; git status --short | wc -l",
    join(ws.path, "wt"),
  );
  ok(!/fsmonitor-set|hook-written/.test(out), out);
  match(out, /^0$/m);
  deepEqual(await snapshot(join(main, ".git")), before);
});

Deno.test("attack: protected paths hold without a user namespace (root) too", async () => {
  await using ws = await tempDir();
  await git(ws.path, "init", "-q");
  const executor = await createSandboxExecutor({ workspace: ws.path });
  executor.profile = { ...executor.profile, userns: false };
  const { out } = await run(
    executor,
    "git config core.fsmonitor 'touch /pwned' && echo fsmonitor-set; echo '{}' > dsh.jsonc && echo config-created; mkdir .zed/x && echo zed-created",
    ws.path,
  );
  ok(!/fsmonitor-set|-created/.test(out), out);
  deepEqual(await listing(ws.path), [".git"]);
});

Deno.test({
  name: "attack (uid 65534): protected paths hold for a normal user, placeholders included",
  ignore: Deno.uid() !== 0,
  async fn() {
    await using ws = await tempDir();
    await git(ws.path, "init", "-q");
    await Deno.chmod(ws.path, 0o777);
    await new Deno.Command("chown", { args: ["-R", "65534:65534", ws.path] }).output();
    const executor = await createSandboxExecutor({ workspace: ws.path });
    const protect = await protectedMounts(
      new ProtectedPaths([ws.path]).list().map((p) => p.path),
      [ws.path],
    );
    const held = await holdPlaceholders(protect.placeholders);
    const script = [
      "id -u",
      "echo ok > mine.txt && cat mine.txt",
      "git config core.fsmonitor 'touch /pwned' && echo fsmonitor-set",
      "echo '{}' > dsh.jsonc && echo config-created",
      "mkdir -p .vscode/x && echo vscode-created",
    ].join("\n");
    const { out } = await runBwrap(
      [
        "bwrap",
        // Root's hidden paths are not this user's to bind.
        ...bwrapArgs(ws.path, ws.path, {
          ...executor.profile,
          hidden: [],
          protect: { ...protect, placeholders: held.paths },
        }),
        "bash",
        "-c",
        `exec 2>&1\n${script}`,
      ],
      ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"],
    ).finally(held.release);
    match(out, /^65534$/m);
    match(out, /^ok$/m);
    ok(!/fsmonitor-set|-created/.test(out), out);
    deepEqual(await listing(ws.path), [".git", "mine.txt"]);
  },
});

Deno.test({
  name:
    "a workspace root cannot write in (another user's, as root) still runs commands, with no placeholder",
  ignore: Deno.uid() !== 0,
  async fn() {
    await using ws = await tempDir();
    await Deno.chmod(ws.path, 0o755);
    await Deno.chown(ws.path, 65534, 65534);
    const executor = await createSandboxExecutor({ workspace: ws.path });
    const { code, out } = await run(
      executor,
      "echo hi; echo '{}' > dsh.jsonc && echo config-created; true",
      ws.path,
    );
    equal(code, 0, out);
    match(out, /^hi$/m);
    ok(!out.includes("config-created"), out);
    deepEqual(await listing(ws.path), []);
  },
});
