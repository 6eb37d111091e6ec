/**
 * The Deno Sandbox executor's sessions and lifecycle through the stand-in: one sandbox per
 * session, reattach by id from a new executor object, replacement of a gone sandbox, faults
 * (dropped WebSocket, forgotten and expired sandboxes), durable detached runs, the environment
 * (no host variable, no model key, secrets on the wire only) and options.
 */
import { deepEqual, equal, match, notEqual, ok, rejects, throws } from "node:assert/strict";
import { code, remoteFixture, runText } from "./_remote_helpers.ts";
import { denoSandboxExecutor } from "../../remote/mod.ts";
import type { DetachedRead, DetachedRun, Executor } from "../../tools/executor.ts";
import { markedSleep, uniqueToken, waitGone, waitMarked } from "../_helpers.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "sessions: one sandbox each, created lazily, reused, isolated, recorded",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const s1 = fx.executor.forSession("s1");
    const s2 = fx.executor.forSession("s2");
    equal(fx.executor.forSession("s1"), s1, "the same executor object per session");
    equal(s1.forSession("s2"), s2);
    equal(fx.standIn.sandboxes().length, 0, "nothing is created before a call");
    await s1.writeFile(`${fx.workspace}/only-s1.txt`, "1");
    await s1.run("true");
    await s2.run("true");
    notEqual(s1.sandboxId, s2.sandboxId);
    equal(
      await s2.stat(`${fx.workspace}/only-s1.txt`),
      undefined,
      "another session's files are not there",
    );
    deepEqual(fx.records.map((r) => [r.sessionId, r.record.provider, r.record.id]), [
      ["s1", "deno-sandbox", s1.sandboxId],
      ["s2", "deno-sandbox", s2.sandboxId],
    ]);
    equal(fx.standIn.sandboxes().length, 2);
    const config = fx.standIn.sandboxes()[0]!.config;
    deepEqual(config.allow_net, []);
    ok(typeof config.stop_at_ms === "number", "a fixed timeout, never 'session'");
    const viaDefault = await fx.executor.run("true");
    equal(viaDefault.exitCode, 0);
    ok(fx.executor.sessions.includes("default"), "calls without a session use the default one");
  },
);

Deno.test("reattach: a new executor object opens the recorded sandbox by id", opts, async () => {
  await using fx = await remoteFixture();
  const first = fx.executor.forSession("s1");
  const record = await first.open();
  const stopBefore = fx.standIn.sandboxes()[0]!.stopAtMs!;
  await first.writeFile(`${fx.workspace}/kept.txt`, "still here");
  await first.detach();
  const later = fx.another().forSession("s1");
  const reopened = await later.open(record);
  equal(reopened.id, record.id);
  equal(reopened.reattached, true);
  equal(new TextDecoder().decode(await later.readFile(`${fx.workspace}/kept.txt`)), "still here");
  equal(fx.standIn.sandboxes().length, 1);
  const stopAfter = fx.standIn.sandboxes()[0]!.stopAtMs!;
  ok(stopAfter > stopBefore, "a reattached sandbox gets a full timeout from its first use");
});

Deno.test("reattach: a gone sandbox is replaced and the record says which", opts, async () => {
  await using fx = await remoteFixture();
  const record = await fx.executor.forSession("s1").open();
  await fx.executor.detach();
  await fx.standIn.forget(record.id!);
  const later = fx.another().forSession("s1");
  const fresh = await later.open(record);
  notEqual(fresh.id, record.id);
  equal(fresh.replaced, record.id);
  equal((await later.run("true")).exitCode, 0);
  equal(fx.records.at(-1)?.record.replaced, record.id, "the replacement is logged");
});

Deno.test(
  "faults: a WebSocket dropped mid-run fails the call clearly; the next call reconnects",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    await session.open();
    const id = session.sandboxId!;
    const token = uniqueToken("dsh-remote-drop");
    const run = session.run(`echo started; ${markedSleep(token)}`, {
      onOutput: () => fx.standIn.dropConnections(id),
    });
    await rejects(run, (error: unknown) => {
      code("REMOTE_DISCONNECTED")(error);
      match((error as Error).message, /dropped during the call.*process group was killed/);
      return true;
    });
    deepEqual(await waitGone(token), [], "the orphaned group was killed on reconnect");
    const again = await runText(session, "echo back");
    deepEqual([again.text, session.sandboxId], ["back\n", id]);
    fx.standIn.dropOnNextCall("readFile");
    await rejects(session.readFile(`${fx.workspace}/x`), code("REMOTE_DISCONNECTED"));
    equal(await session.stat(`${fx.workspace}/x`), undefined, "the next file call reconnects");
  },
);

Deno.test(
  "faults: a spawned child whose WebSocket dropped fails its status and streams, no hang",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    const child = await session.spawn("sleep", { args: ["300"], stdin: "piped" });
    fx.standIn.dropConnections(session.sandboxId!);
    await rejects(child.status, code("REMOTE_DISCONNECTED"));
    await rejects(new Response(child.stdout).text(), code("REMOTE_DISCONNECTED"));
    const writer = child.stdin!.getWriter();
    const big = new Uint8Array(1 << 20);
    await rejects(
      (async () => {
        for (let i = 0; i < 64; i++) await writer.write(big);
      })(),
      code("REMOTE_DISCONNECTED"),
    );
    equal((await session.run("true")).exitCode, 0, "the next call reconnects");
  },
);

Deno.test(
  "destroy ends the sandbox; the next call creates a new one (not a replacement)",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    const record = await session.open();
    await session.destroy();
    equal(fx.standIn.sandboxes()[0]?.ended, "killed");
    equal(session.sandboxId, undefined);
    await session.run("true");
    notEqual(session.sandboxId, record.id);
    equal(fx.records.at(-1)?.record.replaced, undefined);
    await session.destroy();
    await session.destroy();
  },
);

Deno.test(
  "faults: a sandbox that timed out or was lost mid-call is REMOTE_GONE, then replaced",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    await session.open();
    const first = session.sandboxId!;
    const run = session.run("echo started; sleep 300", {
      onOutput: () => void fx.standIn.expire(first),
    });
    await rejects(run, (error: unknown) => {
      code("REMOTE_GONE")(error);
      match(
        (error as Error).message,
        /timed out or was destroyed.*next call creates a fresh sandbox/,
      );
      return true;
    });
    const after = await runText(session, "echo fresh");
    equal(after.text, "fresh\n");
    notEqual(session.sandboxId, first);
    equal(fx.records.at(-1)?.record.replaced, first);
    await fx.standIn.forget(session.sandboxId!);
    await rejects(session.readFile(`${fx.workspace}/f`), code("REMOTE_GONE"));
  },
);

async function readUntilExit(executor: Executor, run: DetachedRun): Promise<DetachedRead> {
  let text = new Uint8Array();
  for (;;) {
    const read = await executor.readDetached!(run, text.length, 1 << 20);
    const next = new Uint8Array(text.length + read.bytes.length);
    next.set(text);
    next.set(read.bytes, text.length);
    text = next;
    if (read.exit !== undefined && text.length === read.total) return { ...read, bytes: text };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test(
  "detached runs survive a new process: read by cursor, exit seen, group killed",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    const run = await session.startDetached("echo one; echo two >&2; exit 4", { id: "job-1" });
    equal(run.environment.id, session.sandboxId);
    equal(JSON.stringify(JSON.parse(JSON.stringify(run))), JSON.stringify(run), "JSON only");
    await session.detach();
    const later = fx.another().forSession("s1");
    const done = await readUntilExit(later, run);
    equal(new TextDecoder().decode(done.bytes), "one\ntwo\n");
    deepEqual(done.exit, { exitCode: 4, signal: null });
    const tail = await later.readDetached(run, 4, 100);
    equal(new TextDecoder().decode(tail.bytes), "two\n");

    const token = uniqueToken("dsh-remote-job");
    const long = await later.startDetached(`${markedSleep(token)} & wait`, { id: "job-2" });
    await waitMarked(token, 1);
    equal((await later.readDetached(long, 0, 10)).exit, undefined, "still running");
    await later.killDetached(long, "SIGTERM");
    deepEqual((await readUntilExit(later, long)).exit, { exitCode: null, signal: "SIGTERM" });
    deepEqual(await waitGone(token), []);
    await rejects(later.startDetached("true", { id: "../x" }), TypeError);
  },
);

Deno.test(
  "environment: nothing from the host, no model key, secrets only on the wire",
  opts,
  async () => {
    Deno.env.set("DEEPSEEK_API_KEY", "sk-host-model-key");
    Deno.env.set("DSH_HOST_ONLY", "host-value");
    try {
      await using fx = await remoteFixture({
        env: { PROJECT_FLAG: "on" },
        secrets: { GITHUB_TOKEN: { hosts: ["api.github.com"], value: "ghp_secret_value" } },
      });
      const session = fx.executor.forSession("s1");
      const { text } = await runText(session, "env", {
        env: { CALL_VAR: "1", DEEPSEEK_API_KEY: "x" },
      });
      ok(!text.includes("DEEPSEEK_API_KEY"), text);
      ok(!text.includes("sk-host-model-key"));
      ok(!text.includes("DSH_HOST_ONLY"), "no host variable is inherited");
      ok(!text.includes("ghp_secret_value"), "the secret value never enters the sandbox");
      match(text, /^PROJECT_FLAG=on$/m);
      match(text, /^CALL_VAR=1$/m);
      const sent = fx.standIn.sandboxes()[0]!;
      deepEqual(sent.config.secrets, {
        GITHUB_TOKEN: { hosts: ["api.github.com"], value: "ghp_secret_value" },
      });
      for (const spawn of sent.spawns) ok(!("DEEPSEEK_API_KEY" in spawn.env));
      throws(
        () => fx.another({ env: { DEEPSEEK_API_KEY: "k" } }),
        /must not hold DEEPSEEK_API_KEY/,
      );
    } finally {
      Deno.env.delete("DEEPSEEK_API_KEY");
      Deno.env.delete("DSH_HOST_ONLY");
    }
  },
);

Deno.test("options: bad values and a missing token fail at once with clear errors", () => {
  const base = { workspace: "/w", allowNet: [], token: "ddo_x" };
  throws(
    () => denoSandboxExecutor({ ...base, workspace: "w" }),
    /'workspace' must be an absolute path/,
  );
  throws(
    () => denoSandboxExecutor({ ...base, allowNet: undefined as unknown as string[] }),
    /'allowNet' must be an array/,
  );
  throws(() => denoSandboxExecutor({ ...base, memory: 100 }), /768 to 4096/);
  throws(
    () => denoSandboxExecutor({ ...base, timeout: "session" as "30m" }),
    /not "session": that ends the sandbox when the connection drops/,
  );
  const saved = Deno.env.get("DENO_DEPLOY_TOKEN");
  Deno.env.delete("DENO_DEPLOY_TOKEN");
  try {
    throws(() => denoSandboxExecutor({ workspace: "/w", allowNet: [] }), /no Deno Deploy token/);
  } finally {
    if (saved !== undefined) Deno.env.set("DENO_DEPLOY_TOKEN", saved);
  }
});

Deno.test(
  "auth and endpoint default to DENO_DEPLOY_TOKEN, DENO_DEPLOY_ORG, DENO_SANDBOX_ENDPOINT",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const names = ["DENO_DEPLOY_TOKEN", "DENO_DEPLOY_ORG", "DENO_SANDBOX_ENDPOINT"];
    const saved = names.map((name) => Deno.env.get(name));
    Deno.env.set("DENO_DEPLOY_TOKEN", fx.standIn.token);
    Deno.env.set("DENO_DEPLOY_ORG", "team-org");
    Deno.env.set("DENO_SANDBOX_ENDPOINT", fx.standIn.endpoint);
    try {
      const fromEnv = denoSandboxExecutor({ workspace: fx.workspace, allowNet: [] });
      equal((await fromEnv.forSession("env").run("true")).exitCode, 0);
      equal(fx.standIn.sandboxes()[0]?.org, "team-org");
      await fromEnv.destroy();
    } finally {
      names.forEach((name, i) => {
        const value = saved[i];
        if (value === undefined) Deno.env.delete(name);
        else Deno.env.set(name, value);
      });
    }
  },
);
