import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { subprocessRuntime } from "../../codemode/subprocess_runtime.ts";
import type { CodeRunOptions, CodeToolCall } from "../../codemode/runtime.ts";
import { tempDir } from "../_helpers.ts";

const runtime = subprocessRuntime();

function echo(call: CodeToolCall): Promise<string> {
  return Promise.resolve(`${call.name}:${JSON.stringify(call.args)}`);
}

function run(program: string, options: Partial<CodeRunOptions> = {}) {
  return runtime.run({ program, callTool: echo, ...options });
}

Deno.test("subprocessRuntime() runs TypeScript, captures logs and returns JSON", async () => {
  const result = await run(
    "const n: number = 2;\nconsole.log('got', { n });\nconsole.error('err line');\nreturn { n, text: await tools.echo({ a: [1] }) };",
  );
  deepEqual(result, {
    logs: ["got { n: 2 }", "err line"],
    calls: 1,
    value: { n: 2, text: 'echo:{"a":[1]}' },
  });
});

Deno.test("subprocessRuntime() rejects failed calls with a catchable ToolCallError", async () => {
  const result = await runtime.run({
    program: `try { await tools.deny({}); } catch (e) {
  return [e instanceof ToolCallError, e.name, e.toolName, e.message];
}`,
    callTool: () => Promise.reject(new Error("denied by policy")),
  });
  deepEqual(result.value, [true, "ToolCallError", "deny", "denied by policy"]);
});

Deno.test("subprocessRuntime() reports exceptions with the program's line", async () => {
  const result = await run("const x = 1;\n\nnotDefined(x);");
  deepEqual(result.error, {
    kind: "exception",
    message: "ReferenceError: notDefined is not defined (line 3)",
  });
  const syntax = await run("const x = ;");
  deepEqual(syntax.error, {
    kind: "exception",
    message: "SyntaxError: Expression expected (line 1, column 11)",
  });
});

Deno.test("subprocessRuntime() checks call arguments as lossless JSON per call", async () => {
  const result = await run(`const errors = [];
for (const bad of [{ a: undefined }, { n: NaN }, [1, , 2], new Date(0), { f() {} }]) {
  try { await tools.echo(bad); } catch (e) { errors.push(e.message); }
}
return { errors, ok: await tools.echo() };`);
  deepEqual(result.value, {
    errors: [
      "tool call arguments must be losslessly JSON-serializable: args.a is undefined",
      "tool call arguments must be losslessly JSON-serializable: args.n is NaN, not a finite number",
      "tool call arguments must be losslessly JSON-serializable: args is a sparse array or has extra properties",
      "tool call arguments must be losslessly JSON-serializable: args is a Date object, not a plain object",
      "tool call arguments must be losslessly JSON-serializable: args.f is a function",
    ],
    ok: "echo:{}",
  });
  equal(result.calls, 1);
});

Deno.test("subprocessRuntime() denies escape attempts and keeps the host alive", async () => {
  const probes = {
    readFile: "await Deno.readTextFile('/etc/hostname')",
    writeFile: "await Deno.writeTextFile('/tmp/dsh_escape', 'x')",
    fetch: "await fetch('http://127.0.0.1:9/')",
    fileFetch: "await fetch('file:///etc/hostname')",
    connect: "await Deno.connect({ hostname: '127.0.0.1', port: 9 })",
    command: "await new Deno.Command('/bin/true').output()",
    env: "Deno.env.get('HOME')",
    envAll: "Deno.env.toObject()",
    npmImport: "await import('npm:left-pad@1.3.0')",
    remoteImport: "await import('https://example.com/x.ts')",
    jsrImport: "await import('jsr:@std/path')",
    fileImport: "await import('file:///etc/hostname')",
    nodeFs: "(await import('node:fs')).readFileSync('/etc/hostname')",
    nodeChild: "(await import('node:child_process')).execSync('true')",
    dlopen: "Deno.dlopen('/lib/x.so', {})",
  };
  const program = `const out = {};
${
    Object.entries(probes).map(([name, code]) =>
      `try { ${code}; out.${name} = "ALLOWED"; } catch (e) { out.${name} = e?.name ?? String(e); }`
    ).join("\n")
  }
out.caches = typeof caches;
out.localStorage = typeof localStorage;
out.sessionStorage = typeof sessionStorage;
return out;`;
  const result = await run(program);
  const value = result.value as Record<string, string>;
  for (const name of Object.keys(probes)) {
    ok(value[name] !== "ALLOWED", `${name} was allowed`);
  }
  equal(value.caches, "undefined");
  equal(value.localStorage, "undefined");
  equal(value.sessionStorage, "undefined");
  equal((await run("return 1")).value, 1);
});

Deno.test("subprocessRuntime() contains a memory bomb", async () => {
  const result = await run("const a = []; while (true) a.push(new Array(1e6).fill(1));", {
    limits: { heapMb: 48 },
  });
  deepEqual(result.error, {
    kind: "out-of-memory",
    message: "the program exceeded the 48 MB heap limit",
  });
});

Deno.test("subprocessRuntime() kills an infinite loop at the deadline", async () => {
  const result = await run("console.log('before'); while (true) {}", {
    limits: { timeoutMs: 1500 },
  });
  deepEqual(result, {
    logs: ["before"],
    calls: 0,
    error: { kind: "timeout", message: "the program did not finish within 1500 ms" },
  });
});

Deno.test("subprocessRuntime() caps a call flood and the calls in flight", async () => {
  let inFlight = 0;
  let peak = 0;
  let started = 0;
  const result = await runtime.run({
    program: "await Promise.all(Array.from({ length: 100000 }, () => tools.count({})));",
    limits: { maxCalls: 50, maxInFlight: 3 },
    callTool: async () => {
      started++;
      peak = Math.max(peak, ++inFlight);
      await Promise.resolve();
      inFlight--;
      return "";
    },
  });
  deepEqual(result.error, {
    kind: "call-limit",
    message: "the program made more than 50 tool calls",
  });
  ok(peak <= 3, `peak in flight ${peak}`);
  ok(started <= 50, `started ${started}`);
  equal(inFlight, 0);
});

Deno.test("subprocessRuntime() drains calls in flight and aborts them at settlement", async () => {
  const seen: string[] = [];
  const result = await runtime.run({
    program: "tools.slow({}); await tools.fast({}); return 'done';",
    callTool: (call) => {
      if (call.name === "fast") return Promise.resolve("fast");
      return new Promise((resolve) => {
        call.signal.addEventListener("abort", () => {
          seen.push("aborted");
          resolve("late");
        }, { once: true });
      });
    },
  });
  equal(result.value, "done");
  deepEqual(seen, ["aborted"]);
});

Deno.test("subprocessRuntime() fails on caller abort", async () => {
  const controller = new AbortController();
  const result = await runtime.run({
    program: "await tools.wait({}); await new Promise(() => {});",
    signal: controller.signal,
    callTool: () => {
      controller.abort();
      return Promise.resolve("");
    },
  });
  deepEqual(result.error, { kind: "abort", message: "the run was cancelled" });
  const pre = await runtime.run({
    program: "return 1",
    signal: AbortSignal.abort(),
    callTool: echo,
  });
  equal(pre.error?.kind, "abort");
});

Deno.test("subprocessRuntime() enforces output and frame byte caps", async () => {
  const logs = await run("for (let i = 0; i < 100; i++) console.log('x'.repeat(100));", {
    limits: { maxOutputBytes: 1000 },
  });
  equal(logs.error?.kind, "output-limit");
  equal(logs.error?.message, "the program produced more than 1000 bytes of output");
  const value = await run("return 'y'.repeat(5000);", { limits: { maxOutputBytes: 1000 } });
  equal(value.error?.kind, "output-limit");
  const frame = await run("await tools.big({ s: 'z'.repeat(100000) });", {
    limits: { maxFrameBytes: 10000 },
  });
  deepEqual(frame.error, {
    kind: "output-limit",
    message: "the sandbox sent a bridge frame larger than 10000 bytes",
  });
});

Deno.test("subprocessRuntime() reports an early exit and non-JSON values", async () => {
  const exit = await run("Deno.exit(3);");
  deepEqual(exit.error, {
    kind: "exit",
    message: "the sandbox process exited with code 3 before the program finished",
  });
  const bigint = await run("return 1n;");
  equal(bigint.error?.kind, "invalid-output");
  const fn = await run("return () => 1;");
  deepEqual(fn.error, {
    kind: "invalid-output",
    message: "the returned function is not JSON-serializable",
  });
  deepEqual(await run("return;"), { logs: [], calls: 0 });
});

Deno.test("subprocessRuntime() keeps the host's stdout clean, even with a fresh DENO_DIR", async () => {
  await using denoDir = await tempDir();
  const host = new URL("./_stdio_host.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", host],
    env: { DENO_DIR: denoDir.path, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(code, 0, new TextDecoder().decode(stderr));
  const lines = new TextDecoder().decode(stdout).split("\n");
  equal(lines.length, 2);
  const kinds = JSON.parse(lines[0]!);
  equal(kinds[0], "invalid-output");
  equal(kinds[1], 'ok:"pong"');
});

Deno.test({
  name: "subprocessRuntime() names the missing --allow-run permission instead of crashing",
  permissions: { read: true, env: true, run: false },
  async fn() {
    const execPath = Deno.execPath();
    await rejects(subprocessRuntime({ execPath }).run({ program: "return 1", callTool: echo }), {
      name: "HarnessError",
      code: "PERMISSION_DENIED",
      message:
        `Cannot start the Code Mode sandbox "${execPath}": Deno denied it: add --allow-run=sh to the deno command (it applies the sandbox's memory limit)`,
    });
  },
});
