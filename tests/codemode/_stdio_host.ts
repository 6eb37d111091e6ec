/** A host process for the stdio-purity test: runs hostile programs, then prints only its verdict. */
import { subprocessRuntime } from "../../codemode/subprocess_runtime.ts";
import { HANG_GUARD_MS } from "../_helpers.ts";

const runtime = subprocessRuntime();
const kinds: string[] = [];
for (
  const program of [
    "Deno.stdout.writeSync(new TextEncoder().encode('INJECTED\\n')); await new Promise(() => {});",
    "Deno.stderr.writeSync(new TextEncoder().encode('NOISE\\n')); return await tools.echo({});",
    "const b = new Uint8Array(64); Deno.stdin.read(b); return await tools.echo({});",
  ]
) {
  const result = await runtime.run({
    program,
    callTool: () => Promise.resolve("pong"),
    // A hang guard: each program ends by itself (invalid output, a result, a refused read).
    limits: { timeoutMs: HANG_GUARD_MS },
  });
  kinds.push(result.error?.kind ?? `ok:${JSON.stringify(result.value)}`);
}
console.log(JSON.stringify(kinds));
