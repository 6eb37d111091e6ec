/** Two real processes opening one session log: the second is refused; a dead holder's lock is taken over. */
import { equal, match, rejects } from "node:assert/strict";
import { SessionLog } from "../../agent/session_log.ts";
import { readSessionLog } from "../../agent/read_session_log.ts";
import { HarnessError } from "../../core/errors.ts";
import { tempDir } from "../_helpers.ts";

const HOLDER = new URL("./_hold_session_log.ts", import.meta.url).pathname;

/** A holder process with line-wise stdout. */
function holder(path: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", HOLDER, path],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const writer = child.stdin.getWriter();
  return {
    child,
    async line(): Promise<string> {
      while (!pending.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) return pending;
        pending += value;
      }
      const index = pending.indexOf("\n");
      const line = pending.slice(0, index);
      pending = pending.slice(index + 1);
      return line;
    },
    send: (text: string) => writer.write(new TextEncoder().encode(text)),
    async end(): Promise<Deno.CommandStatus> {
      await writer.close().catch(() => {});
      while ((await lines.read()).done === false) { /* drain */ }
      return await child.status;
    },
  };
}

Deno.test("a second process opening the same session log gets 'session <id> in use by pid N'", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s1.jsonl`;
  const created = await SessionLog.create(path, { id: "s1", cwd: dir.path });
  created.append("turn/start", { turn: 1 });
  created.close();

  const first = holder(path);
  equal(await first.line(), "open 1");
  const second = holder(path);
  equal(
    await second.line(),
    `error session s1 in use by pid ${first.child.pid}: another agent has its log "${path}" open; close that agent first (the lock file is "${path}.lock")`,
  );
  equal((await second.end()).code, 3);

  // The holder keeps appending with unique sequence numbers.
  await first.send("a\n");
  equal(await first.line(), "appended 2");
  await first.end();

  // Released on close: a third process can resume and continues the sequence.
  const third = holder(path);
  equal(await third.line(), "open 2");
  await third.send("b\n");
  equal(await third.line(), "appended 3");
  await third.end();
  const { events } = await readSessionLog(path);
  equal(events.map((e) => e.seq).join(), "1,2,3");
});

Deno.test("the lock of a killed holder is stale and is taken over", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s2.jsonl`;
  (await SessionLog.create(path, { id: "s2", cwd: dir.path })).close();
  const first = holder(path);
  equal(await first.line(), "open 0");
  first.child.kill("SIGKILL");
  await first.end();
  // The lock file is still there, naming a dead pid.
  match(await Deno.readTextFile(`${path}.lock`), new RegExp(`"pid":${first.child.pid}`));
  const second = holder(path);
  equal(await second.line(), "open 0");
  await second.end();
});

Deno.test("opening a session log twice in one process is refused until the first closes", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s3.jsonl`;
  const log = await SessionLog.create(path, { id: "s3", cwd: dir.path });
  await rejects(
    SessionLog.open(path),
    (error: unknown) =>
      error instanceof HarnessError && error.code === "SESSION_IN_USE" &&
      error.message.startsWith(`session s3 in use by pid ${Deno.pid} (this process)`),
  );
  log.close();
  const { log: again } = await SessionLog.open(path);
  again.close();
  await rejects(Deno.stat(`${path}.lock`), Deno.errors.NotFound);
});
