import { deepEqual, equal, match, ok, rejects, throws } from "node:assert/strict";
import { HarnessError } from "../../core/errors.ts";
import { createAgent } from "../../mod.ts";
import { MockAdapter, textResponse } from "../../agent/mod.ts";
import { SessionLog } from "../../agent/session_log.ts";
import { readSessionLog } from "../../agent/read_session_log.ts";
import { loadSessionKey, SESSION_KEY_FILE } from "../../agent/session_key.ts";
import { prepareSessionsDir } from "../../agent/sessions_dir.ts";
import { tempDir } from "../_helpers.ts";
import { createHarness } from "../../mod.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));

async function signedLog(path: string, events: number, cwd = "/work"): Promise<void> {
  const log = await SessionLog.create(path, { id: "s", cwd, key: KEY });
  for (let i = 0; i < events; i++) log.append("test/line", { i });
  log.close();
}

function refused(code: string, pattern: RegExp) {
  return (error: unknown) => {
    ok(error instanceof HarnessError, String(error));
    equal(error.code, code);
    match(error.message, pattern);
    return true;
  };
}

Deno.test("a signed log reopens with its key, and a checkpoint follows the header, every 64 lines and close", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await signedLog(path, 130);
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
  const macs = lines.flatMap((line, i) => line.startsWith('{"type":"log/mac"') ? [i + 1] : []);
  // header, +64 events, +64 events, close (2 more).
  deepEqual(macs, [2, 67, 132, 135]);
  const { log, loaded, movedTail } = await SessionLog.open(path, { key: KEY, id: "s" });
  equal(loaded.events.length, 130);
  deepEqual(loaded.warnings, []);
  equal(movedTail, undefined);
  log.append("test/line", { i: 130 });
  log.close();
  const again = await SessionLog.open(path, { key: KEY });
  equal(again.loaded.events.length, 131);
  again.log.close();
  // The plain reader shows the events without the signature lines.
  equal((await readSessionLog(path)).events.length, 131);
});

Deno.test("a log edited by anyone but the agent is refused on load, naming the line", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await signedLog(path, 3);
  const text = await Deno.readTextFile(path);
  // What a command could do: point the header at "/".
  await Deno.writeTextFile(path, text.replace('"cwd":"/work"', '"cwd":"/"'));
  await rejects(
    SessionLog.open(path, { key: KEY }),
    refused(
      "SESSION_LOG_TAMPERED",
      /^Cannot load session log ".*s\.jsonl": it was changed by something other than the dsh agent \(the signature at line 2 does not match its content\)/,
    ),
  );
  // Nothing was cut or rewritten, and the lock is gone.
  equal(await Deno.readTextFile(path), text.replace('"cwd":"/work"', '"cwd":"/"'));
  await rejects(Deno.lstat(`${path}.lock`), Deno.errors.NotFound);
  // Another key is refused the same way.
  await Deno.writeTextFile(path, text);
  await rejects(
    SessionLog.open(path, { key: new Uint8Array(32) }),
    refused("SESSION_LOG_TAMPERED", /changed by something other than the dsh agent/),
  );
});

Deno.test("a log without signatures (an older dsh) is refused with a key, read as before without", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/old.jsonl`;
  const old = await SessionLog.create(path, { id: "old", cwd: "/" });
  old.append("turn/start", { turn: 1 });
  old.close();
  await rejects(
    SessionLog.open(path, { key: KEY }),
    refused("SESSION_LOG_UNSIGNED", /it carries no signature .* start a new session/),
  );
  const plain = await SessionLog.open(path);
  equal(plain.loaded.events.length, 1);
  plain.log.close();
});

Deno.test("lines appended after the last signature are moved aside, never loaded or signed later", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await signedLog(path, 2);
  const forged = '{"seq":3,"time":"t","type":"user/message","turn":9,"content":[]}\n';
  await Deno.writeTextFile(path, forged, { append: true });
  const { log, loaded, movedTail } = await SessionLog.open(path, { key: KEY });
  equal(loaded.events.length, 2);
  ok(movedTail !== undefined);
  equal(await Deno.readTextFile(movedTail), forged);
  match(loaded.warnings[0]?.message ?? "", /carry no signature.*not loaded and were moved to/);
  log.append("test/line", { i: 2 });
  log.close();
  const again = await SessionLog.open(path, { key: KEY });
  deepEqual(again.loaded.events.map((e) => e.seq), [1, 2, 3]);
  equal(again.loaded.events.at(-1)?.type, "test/line");
  again.log.close();
});

Deno.test("a log copied over another session's is refused", async () => {
  await using dir = await tempDir();
  await signedLog(`${dir.path}/s.jsonl`, 1);
  await Deno.copyFile(`${dir.path}/s.jsonl`, `${dir.path}/other.jsonl`);
  await rejects(
    SessionLog.open(`${dir.path}/other.jsonl`, { key: KEY, id: "other" }),
    refused("SESSION_LOG_MISMATCH", /belongs to session "s"/),
  );
});

Deno.test("logs are never written through a symbolic link (file or folder)", async () => {
  await using dir = await tempDir();
  const outside = `${dir.path}/outside`;
  await Deno.mkdir(outside);
  await Deno.mkdir(`${dir.path}/logs`);
  // A link where the new log would go: O_EXCL refuses it, nothing lands outside.
  await Deno.symlink(`${outside}/x.jsonl`, `${dir.path}/logs/x.jsonl`);
  await rejects(
    SessionLog.create(`${dir.path}/logs/x.jsonl`, { id: "x", cwd: "/", key: KEY }),
    Deno.errors.AlreadyExists,
  );
  // A link to a real log: refused on open, the target untouched.
  await signedLog(`${outside}/s.jsonl`, 1);
  const before = await Deno.readTextFile(`${outside}/s.jsonl`);
  await Deno.symlink(`${outside}/s.jsonl`, `${dir.path}/logs/s.jsonl`);
  await rejects(SessionLog.open(`${dir.path}/logs/s.jsonl`, { key: KEY }), {
    name: "UnsafePathError",
    message: /the session file ".*logs\/s\.jsonl": it is a symbolic link/,
  });
  equal(await Deno.readTextFile(`${outside}/s.jsonl`), before);
  // The folder itself a link: refused for create and open.
  await Deno.symlink(outside, `${dir.path}/linked`);
  await rejects(
    SessionLog.create(`${dir.path}/linked/new.jsonl`, { id: "new", cwd: "/", key: KEY }),
    { name: "UnsafePathError", message: /the sessions folder ".*linked": it is a symbolic link/ },
  );
  await rejects(SessionLog.open(`${dir.path}/linked/s.jsonl`, { key: KEY }), {
    name: "UnsafePathError",
  });
  // Only the real log is there: no x.jsonl, no lock, no new log.
  deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["s.jsonl"]);
});

Deno.test("prepareSessionsDir() checks every folder below the anchor and notices a swap", async () => {
  await using dir = await tempDir();
  const sessions = prepareSessionsDir(`${dir.path}/ws/.dsh/sessions`, `${dir.path}/ws`);
  equal(Deno.statSync(sessions.path).mode! & 0o777, 0o700);
  sessions.verify();
  await Deno.mkdir(`${dir.path}/outside`);
  await Deno.rename(`${dir.path}/ws/.dsh`, `${dir.path}/moved`);
  await Deno.symlink(`${dir.path}/outside`, `${dir.path}/ws/.dsh`);
  throws(() => sessions.verify(), {
    name: "UnsafePathError",
    message: /".*ws\/\.dsh": it was replaced while dsh was using it \(now a symbolic link\)/,
  });
  throws(() => prepareSessionsDir(`${dir.path}/ws/.dsh/sessions`, `${dir.path}/ws`), {
    name: "UnsafePathError",
    message: /the sessions folder ".*ws\/\.dsh": it is a symbolic link/,
  });
  deepEqual([...Deno.readDirSync(`${dir.path}/outside`)], [], "nothing created outside");
});

Deno.test("the log key is created 0600 on first use, reused, and refused when unsafe", async () => {
  await using dir = await tempDir();
  const keys = `${dir.path}/state/dsh/keys`;
  const key = loadSessionKey(keys);
  equal(key.length, 32);
  equal(Deno.statSync(`${keys}/${SESSION_KEY_FILE}`).mode! & 0o777, 0o600);
  equal(Deno.statSync(keys).mode! & 0o777, 0o700);
  deepEqual(loadSessionKey(keys), key);
  Deno.chmodSync(`${keys}/${SESSION_KEY_FILE}`, 0o644);
  throws(() => loadSessionKey(keys), /others may read or write it \(mode 644\); run chmod 600/);
  Deno.removeSync(`${keys}/${SESSION_KEY_FILE}`);
  await Deno.writeTextFile(`${dir.path}/planted`, "0".repeat(64));
  Deno.symlinkSync(`${dir.path}/planted`, `${keys}/${SESSION_KEY_FILE}`);
  throws(() => loadSessionKey(keys), { name: "UnsafePathError", message: /symbolic link/ });
});

Deno.test("a session id over the file-name limit gets a clear error, nothing is created", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness();
  const long = "a".repeat(300);
  await rejects(
    createAgent(ctx, {
      adapter: new MockAdapter([textResponse("hi")]),
      model: "m",
      cwd: dir.path,
      logDir: dir.path,
      sessionId: long,
    }),
    {
      name: "RangeError",
      message: /'sessionId' is 300 characters long: the longest is 128 \(it names the log file/,
    },
  );
  await rejects(SessionLog.create(`${dir.path}/${"b".repeat(220)}.jsonl`, { id: "b", cwd: "/" }), {
    name: "RangeError",
    message:
      /its file name is 226 bytes, and with its lock file's suffix \(48 bytes\) it exceeds the 255-byte file-name limit/,
  });
  deepEqual([...Deno.readDirSync(dir.path)], []);
  await ctx.fiber.dispose();
});
