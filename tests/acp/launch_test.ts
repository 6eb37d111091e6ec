/**
 * The launcher (acp/launch.ts) as an editor runs it: by the absolute path of Deno, with `deno`
 * not on PATH. It must run the agent with that same Deno, or tell the client how to fix it.
 */
import { equal, match } from "node:assert/strict";
import { client, ndJsonStream, RequestError } from "@agentclientprotocol/sdk";
import { dirname, join } from "node:path";
import { tempDir } from "../_helpers.ts";

const LAUNCH = new URL("../../acp/launch.ts", import.meta.url).pathname;

/** A PATH with the usual tools but no `deno`. */
function pathWithoutDeno(): string {
  const denoDir = dirname(Deno.execPath());
  const dirs = (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":").filter((dir) => {
    if (dir === denoDir) return false;
    try {
      Deno.statSync(join(dir, "deno"));
      return false;
    } catch {
      return true;
    }
  });
  return dirs.join(":");
}

async function runLauncher(allowRun: string) {
  const dir = await tempDir();
  const cwd = join(dir.path, "ws");
  await Deno.mkdir(cwd);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--allow-read", "--allow-env", allowRun, LAUNCH],
    cwd,
    clearEnv: true,
    env: { PATH: pathWithoutDeno(), HOME: dir.path, TMPDIR: dir.path },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const connection = client({ name: "launch" }).connect(ndJsonStream(child.stdin, child.stdout));
  return {
    cwd,
    agent: connection.agent,
    stderr,
    async [Symbol.asyncDispose]() {
      connection.close();
      await connection.closed.catch(() => {});
      await child.stdin.close().catch(() => {});
      await child.status;
      await stderr;
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("launch.ts runs the agent with its own Deno when deno is not on PATH", async () => {
  await using run = await runLauncher(`--allow-run=${Deno.execPath()}`);
  const init = await run.agent.request("initialize", { protocolVersion: 1 });
  equal(init.protocolVersion, 1);
  const { sessionId } = await run.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
  match(sessionId, /\S/);
});

Deno.test("launch.ts answers with a JSON-RPC error naming the flag when it may not run its Deno", async () => {
  await using run = await runLauncher("--allow-run=deno");
  await run.agent.request("initialize", { protocolVersion: 1 });
  let error: unknown;
  try {
    await run.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
  } catch (caught) {
    error = caught;
  }
  equal(error instanceof RequestError, true);
  equal(
    (error as RequestError).message,
    `Cannot start the agent: the launcher may not run the Deno executable ${
      JSON.stringify(Deno.execPath())
    } (deno is not on PATH, so --allow-run=deno does not grant it): run the launcher with --allow-run=${Deno.execPath()}`,
  );
});

Deno.test("the launcher's relay answers for an agent that dies before answering, with its reason", async () => {
  const fixture = new URL("./_relay_fixture.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--allow-run=sh", fixture],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const connection = client({ name: "relay" }).connect(ndJsonStream(child.stdin, child.stdout));
  try {
    const init = await connection.agent.request("initialize", { protocolVersion: 1 });
    equal(init.protocolVersion, 1);
    let error: unknown;
    try {
      await connection.agent.request("session/new", { cwd: "/tmp", mcpServers: [] });
    } catch (caught) {
      error = caught;
    }
    equal(
      (error as RequestError).message,
      "Cannot start the agent: it exited with code 3 before answering (error: boom: grant --allow-x); its whole error output is in the agent's stderr log",
    );
  } finally {
    connection.close();
    await connection.closed.catch(() => {});
    await child.stdin.close().catch(() => {});
    equal((await child.status).code, 1);
    match(await stderr, /error: boom: grant --allow-x/);
  }
});
