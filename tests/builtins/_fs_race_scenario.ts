/**
 * Attack tests of the fs tools' check-then-open race (issue 19 item 3): real subprocesses swap a
 * folder and a symlink between a workspace folder and a folder outside while `read` and `write`
 * (and `edit`) run through the registry with the workspace policy, and every approval is rejected. No byte may
 * land outside, no outside content may be returned, and a lost race is a clear error.
 *
 * Not a `*_test.ts` file: `fs_race_test.ts` runs it in a `deno test` process of its own, since
 * the pinned walk uses the working directory, which the other modules of a `--parallel` run share.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { workspacePolicyPlugin } from "../../builtins/workspace_policy.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";
import { usePinnedOpen } from "../../builtins/mod.ts";

// This process runs this module alone: the fs tools may pin folders with its working directory.
usePinnedOpen(true);

/**
 * The fast attacker (a Deno subprocess, sync syscalls in a tight loop): `d` is a symlink swapped
 * atomically between `real` (inside) and the outside folder; `d2` is a real folder renamed away
 * and replaced by a symlink to the outside folder, then put back; `d4`, a real folder, trades
 * places with a symlink to the outside folder in one syscall (`renameat2` with RENAME_EXCHANGE,
 * through FFI), the attacker the verify-after-open check alone loses to. It stops at the stop file
 * or after `max` rounds, and reports its rounds.
 */
const ATTACKER = `
const [ws, out, stop, max] = Deno.args;
// renameat2(RENAME_EXCHANGE): the real folder d4 and the symlink d4link trade places atomically.
const libc = Deno.dlopen("libc.so.6", {
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
});
const cstr = (s) => new TextEncoder().encode(s + "\\0");
const [d4, d4link] = [cstr(ws + "/d4"), cstr(ws + "/d4link")];
const step = (f) => { try { f(); } catch { /* the tools made or moved something: go on */ } };
Deno.writeTextFileSync(ws + "/../attacker-ready", "1");
let rounds = 0;
for (; rounds < Number(max); rounds++) {
  if (rounds % 256 === 0) {
    try { Deno.statSync(stop); break; } catch { /* keep going */ }
  }
  for (const target of [out, "real"]) {
    step(() => Deno.removeSync(ws + "/d.tmp"));
    step(() => Deno.symlinkSync(target, ws + "/d.tmp"));
    step(() => Deno.renameSync(ws + "/d.tmp", ws + "/d"));
  }
  step(() => Deno.renameSync(ws + "/d2", ws + "/d2.away"));
  step(() => Deno.symlinkSync(out, ws + "/d2"));
  step(() => Deno.removeSync(ws + "/d2"));
  step(() => Deno.renameSync(ws + "/d2.away", ws + "/d2"));
  for (let i = 0; i < 8; i++) libc.symbols.renameat2(-100, d4, -100, d4link, 2);
}
console.log(rounds);
`;

const SECRET = "SECRET-KEY-0123456789";

async function waitFor(path: string): Promise<void> {
  while (!await Deno.lstat(path).then(() => true, () => false)) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function listing(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const entry of Deno.readDir(dir)) {
    out[entry.name] = await Deno.readTextFile(`${dir}/${entry.name}`);
  }
  return out;
}

Deno.test("attack: swapping a folder and a symlink during read and write never reaches outside", async () => {
  await using base = await tempDir();
  const top = await Deno.realPath(base.path);
  const ws = `${top}/ws`;
  const out = `${top}/outside`;
  await Deno.mkdir(`${ws}/real`, { recursive: true });
  await Deno.mkdir(`${ws}/d2`);
  await Deno.mkdir(out);
  await Deno.writeTextFile(`${ws}/real/f.txt`, "inside\n");
  await Deno.writeTextFile(`${ws}/d2/f.txt`, "inside too\n");
  await Deno.mkdir(`${ws}/d4`);
  await Deno.writeTextFile(`${ws}/d4/f.txt`, "inside four\n");
  await Deno.symlink(out, `${ws}/d4link`);
  await Deno.writeTextFile(`${out}/f.txt`, `${SECRET}\n`);
  await Deno.writeTextFile(`${out}/e.txt`, "token\n");
  await Deno.symlink("real", `${ws}/d`);
  const before = await listing(out);

  await using ctx = await fsHarness();
  let asks = 0;
  ctx.provide("approval", {
    request: () => {
      asks++;
      return Promise.resolve("rejected");
    },
  });
  await ctx.plugin(workspacePolicyPlugin, { root: ws }).ready;
  const agent = fakeAgent(ws);

  const script = `${top}/attacker.ts`;
  await Deno.writeTextFile(script, ATTACKER);
  const stop = `${top}/stop`;
  const attacker = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--allow-read=${top}`,
      `--allow-write=${top}`,
      "--allow-ffi",
      script,
      ws,
      out,
      stop,
      "5000000",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // The slow attacker of the report: a bash loop retargeting `d3` with `ln -sfn`.
  await Deno.symlink("real", `${ws}/d3`);
  const shell = new Deno.Command("bash", {
    args: [
      "-c",
      `cd "${ws}" && for ((i = 0; i < 400; i++)); do ln -sfn "${out}" d3; ln -sfn real d3; done`,
    ],
  }).spawn();
  await waitFor(`${top}/attacker-ready`);

  const outcomes: { call: string; outcome: ToolOutcome }[] = [];
  const calls = 150;
  for (let i = 0; i < calls; i++) {
    for (const dir of ["d", "d2", "d3", "d4"]) {
      const read = await ctx.call("read", { file_path: `${dir}/f.txt` }, agent);
      outcomes.push({ call: `read ${dir}`, outcome: read });
      const write = await ctx.call(
        "write",
        { file_path: `${dir}/w${i}.txt`, content: `payload ${i}\n` },
        agent,
      );
      outcomes.push({ call: `write ${dir}`, outcome: write });
    }
    // An edit whose old_string the outside file holds too.
    await Deno.writeTextFile(`${ws}/real/e.txt`, "token\n");
    const edit = await ctx.call(
      "edit",
      { file_path: "d/e.txt", old_string: "token", new_string: `edited ${i}` },
      agent,
    );
    outcomes.push({ call: "edit d", outcome: edit });
  }
  await Deno.writeTextFile(stop, "1");
  const { stdout } = await attacker.output();
  await shell.status;
  const rounds = Number(new TextDecoder().decode(stdout).trim());

  // Nothing landed outside: the same files with the same content.
  deepEqual(await listing(out), before);
  const counts: Record<string, number> = {};
  for (const { call, outcome } of outcomes) {
    const body = text(outcome);
    ok(!body.includes(SECRET), `${call} returned outside content: ${body.slice(0, 200)}`);
    const code = outcome.isError ? outcome.error?.code ?? "?" : "ok";
    counts[code] = (counts[code] ?? 0) + 1;
    if (!outcome.isError) continue;
    // A lost race or a rejected ask, each said plainly; a folder caught mid-rename is missing.
    ok(
      ["FS_CHANGED", "DENIED", "NOT_FOUND", "FS_ERROR"].includes(code),
      `${call}: ${code} ${body}`,
    );
    if (code === "FS_ERROR") ok(body.includes("links that kept changing"), body);
    if (code === "FS_CHANGED") ok(body.includes("the path changed during the call"), body);
    if (code === "DENIED") ok(body.includes("rejected"), body);
  }
  console.log(`attacker rounds ${rounds}; asks ${asks}; outcomes ${JSON.stringify(counts)}`);
  ok(rounds > 0 && asks > 0, "the attack never made the path reach outside");
  ok((counts.ok ?? 0) > 0, "no call succeeded: symlinks inside the workspace must stay usable");
  equal(outcomes.length, calls * 9);
});

Deno.test("read and write through pinned folders leave the working directory unchanged", async () => {
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  await using ctx = await fsHarness();
  const before = Deno.cwd();
  const agent = fakeAgent(root);
  const write = await ctx.call("write", { file_path: "a/b/c.txt", content: "x\n" }, agent);
  equal(write.isError, false, text(write));
  equal(Deno.cwd(), before);
  const read = await ctx.call("read", { file_path: "a/b/c.txt" }, agent);
  equal(text(read).split("\n")[3], "1: x");
  equal(Deno.cwd(), before);
  const missing = await ctx.call("read", { file_path: "a/nope/c.txt" }, agent);
  equal(missing.error?.code, "NOT_FOUND");
  equal(Deno.cwd(), before);
});
