import type { JsonObject } from "../../core/json.ts";
import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { SessionLog } from "../../agent/session_log.ts";
import { parseSessionLog, readSessionLog } from "../../agent/read_session_log.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("SessionLog.create() writes the header and one line per event", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  const log = await SessionLog.create(path, {
    id: "s1",
    cwd: "/work",
    createdAt: new Date("2026-01-02T03:04:05.000Z"),
  });
  const first = log.append("turn/start", { turn: 1 });
  log.append("fs/observed", { path: "/work/a.txt", nested: { ok: [1, 2] } });
  equal(first.seq, 1);
  equal(log.lastSeq, 2);
  log.close();
  const lines = (await Deno.readTextFile(path)).split("\n");
  equal(lines.length, 4);
  equal(lines[3], "");
  deepEqual(JSON.parse(lines[0]!), {
    type: "session",
    version: 1,
    id: "s1",
    createdAt: "2026-01-02T03:04:05.000Z",
    cwd: "/work",
  });
  const second = JSON.parse(lines[2]!);
  deepEqual(Object.keys(second), ["seq", "time", "type", "path", "nested"]);
  equal(second.seq, 2);
  equal(typeof second.time, "string");
});

Deno.test("SessionLog.create() refuses to overwrite an existing log", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  (await SessionLog.create(path, { id: "s", cwd: "/" })).close();
  await rejects(SessionLog.create(path, { id: "s", cwd: "/" }), Deno.errors.AlreadyExists);
});

Deno.test("SessionLog.append() rejects reserved keys, non-JSON data and a closed log", async () => {
  await using dir = await tempDir();
  const log = await SessionLog.create(`${dir.path}/s.jsonl`, { id: "s", cwd: "/" });
  throws(
    () => log.append("x/y", { seq: 5 }),
    new TypeError('Cannot append "x/y" to the session log: data uses the reserved key "seq"'),
  );
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  throws(() => log.append("x/y", cyclic as JsonObject), (error: unknown) => {
    ok(error instanceof TypeError);
    ok(
      error.message.startsWith(
        'Cannot append "x/y" to the session log: data is not JSON-serializable: ',
      ),
    );
    return true;
  });
  equal(log.lastSeq, 0);
  log.close();
  log.close();
  equal(log.closed, true);
  throws(
    () => log.append("x/y", {}),
    new Error(`Cannot append "x/y" to session log "${dir.path}/s.jsonl": the log is closed`),
  );
});

Deno.test("readSessionLog() skips a torn last line with a warning and keeps earlier events", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  const log = await SessionLog.create(path, { id: "s", cwd: "/" });
  for (let turn = 1; turn <= 3; turn++) log.append("turn/start", { turn });
  log.close();
  // Simulate a crash in the middle of a write.
  await Deno.writeTextFile(path, '{"seq":4,"time":"2026-01-01T00:00:00Z","type":"tur', {
    append: true,
  });
  const loaded = await readSessionLog(path);
  deepEqual(loaded.events.map((event) => event.turn), [1, 2, 3]);
  deepEqual(loaded.warnings, [{
    line: 5,
    message: "torn last line skipped (50 characters, no newline)",
  }]);
  equal(loaded.endsWithNewline, false);
});

Deno.test("readSessionLog() skips a corrupt middle line without hiding later events", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeTextFile(
    path,
    [
      '{"type":"session","version":1,"id":"s","createdAt":"t","cwd":"/"}',
      '{"seq":1,"time":"t","type":"turn/start","turn":1}',
      "garbage",
      '["not an event"]',
      '{"seq":2,"time":"t","type":"turn/end","turn":1,"stopReason":"end_turn"}',
      "",
    ].join("\n"),
  );
  const loaded = await readSessionLog(path);
  deepEqual(loaded.events.map((event) => event.seq), [1, 2]);
  deepEqual(loaded.warnings, [
    { line: 3, message: "line is not valid JSON; skipped" },
    { line: 4, message: "line is not a session event; skipped" },
  ]);
});

Deno.test("readSessionLog() throws SyntaxError when line 1 is not a header", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeTextFile(path, '{"seq":1}\n');
  await rejects(
    readSessionLog(path),
    new SyntaxError(
      `Cannot read session log "${path}": line 1 is not a session header: received "{\\"seq\\":1}"`,
    ),
  );
});

Deno.test("SessionLog.open() continues seq and starts a fresh line after a torn tail", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  const log = await SessionLog.create(path, { id: "s", cwd: "/w" });
  log.append("turn/start", { turn: 1 });
  log.close();
  await Deno.writeTextFile(path, '{"seq":2,"ti', { append: true });
  const { log: reopened, loaded } = await SessionLog.open(path);
  equal(loaded.header.id, "s");
  equal(loaded.events.length, 1);
  equal(reopened.lastSeq, 1);
  equal(reopened.append("turn/end", { turn: 1, stopReason: "end_turn" }).seq, 2);
  reopened.close();
  const again = await readSessionLog(path);
  deepEqual(again.events.map((event) => event.type), ["turn/start", "turn/end"]);
  deepEqual(again.warnings, [{ line: 3, message: "line is not valid JSON; skipped" }]);
  equal(again.endsWithNewline, true);
});

Deno.test("SessionLog with syncEveryEvent appends durably", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  const log = await SessionLog.create(path, { id: "s", cwd: "/", syncEveryEvent: true });
  log.append("a/b", { n: 1 });
  log.sync();
  const loaded = await readSessionLog(path);
  equal(loaded.events.length, 1);
  log.close();
});

Deno.test("SessionLog.memory() keeps the header and events as lines, without a file", () => {
  const log = SessionLog.memory({ id: "s", cwd: "/w", createdAt: new Date(0) });
  equal(log.path, ":memory:");
  log.append("turn/start", { turn: 1 });
  const lines = log.lines();
  equal(lines.length, 2);
  equal(
    lines[0],
    '{"type":"session","version":1,"id":"s","createdAt":"1970-01-01T00:00:00.000Z","cwd":"/w"}',
  );
  equal(JSON.parse(lines[1]!).type, "turn/start");
  log.sync();
  log.close();
  equal(log.closed, true);
  throws(() => log.append("x", {}), {
    message: 'Cannot append "x" to session log ":memory:": the log is closed',
  });
});

Deno.test("tool/call: args travel on the event, the line keeps only the raw text, and loading parses it once", () => {
  const log = SessionLog.memory({ id: "s", cwd: "/" });
  const base = { turn: 1, step: 1, name: "bash" };
  const live = log.append("tool/call", {
    ...base,
    callId: "a",
    arguments: '{"command":"ls"}',
    args: { command: "ls" },
  });
  deepEqual(live.args, { command: "ls" });
  log.append("tool/call", { ...base, callId: "b", arguments: "{oops" });
  log.append("tool/call", { ...base, callId: "c", arguments: "" });
  log.append("tool/call", { ...base, callId: "d", arguments: '{"n":9007199254740993}' });
  const lines = log.lines();
  log.close();
  equal(
    lines[1],
    JSON.stringify({
      seq: 1,
      time: JSON.parse(lines[1]!).time,
      type: "tool/call",
      ...base,
      callId: "a",
      arguments: '{"command":"ls"}',
    }),
  );
  const { events } = parseSessionLog(lines.join("\n") + "\n", "s.jsonl");
  const args = events.map((event) => event.args);
  deepEqual(args, [{ command: "ls" }, undefined, {}, undefined]);
  ok(Object.isFrozen(args[0]));
});
