/**
 * `takeSecrets` in a real process: the launcher's `dsh/secrets` line is taken off stdin before
 * the editor's first frame, the key is never left in `Deno.env`, and without the line stdin is
 * unchanged and the key comes from the environment (then leaves `Deno.env` too).
 */
import { deepEqual } from "node:assert/strict";
import { secretsLine } from "../../acp/_stdin_prefix.ts";

const PREFIX = new URL("../../acp/_stdin_prefix.ts", import.meta.url).href;
const PROGRAM = `
import { takeSecrets } from ${JSON.stringify(PREFIX)};
const { deepSeekApiKey, input } = await takeSecrets(Deno.stdin.readable, true);
const rest = await new Response(input).text();
console.log(JSON.stringify({ deepSeekApiKey, env: Deno.env.get("DEEPSEEK_API_KEY") ?? null, rest }));
`;

async function run(stdin: Uint8Array, env: Record<string, string>): Promise<unknown> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", PROGRAM],
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(stdin);
  await writer.close();
  const { stdout } = await child.output();
  return JSON.parse(new TextDecoder().decode(stdout));
}

Deno.test("the launcher's secrets line is taken off stdin and the key never stays in Deno.env", async () => {
  const frame = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n';
  const prefix = secretsLine({ DEEPSEEK_API_KEY: "sk-from-stdin" });
  const bytes = new Uint8Array([...prefix, ...new TextEncoder().encode(frame)]);
  deepEqual(await run(bytes, { DEEPSEEK_API_KEY: "sk-from-env" }), {
    deepSeekApiKey: "sk-from-stdin",
    env: null,
    rest: frame,
  });
  // Started without the launcher: stdin untouched, the key from the environment, then gone.
  deepEqual(await run(new TextEncoder().encode(frame), { DEEPSEEK_API_KEY: "sk-from-env" }), {
    deepSeekApiKey: "sk-from-env",
    env: null,
    rest: frame,
  });
});
