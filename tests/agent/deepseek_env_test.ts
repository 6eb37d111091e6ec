import { equal, match, ok } from "node:assert/strict";
import { tempDir } from "../_helpers.ts";

const AGENT = new URL("../../agent/mod.ts", import.meta.url).href;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** Builds the adapter from the environment, prints its base URL and the first error of a turn. */
const SCRIPT = `import { DeepSeekAdapter } from ${JSON.stringify(AGENT)};
const adapter = new DeepSeekAdapter({ maxRetries: 0 });
console.log(adapter.baseUrl);
try {
  const request = { model: "", system: "", messages: [], tools: [], signal: new AbortController().signal };
  for await (const _ of adapter.stream(request)) break;
} catch (error) {
  console.log((error as Error).message);
}
`;

async function run(allowEnv: string | undefined) {
  await using dir = await tempDir("dsh_deepseek_env_");
  const file = `${dir.path}/adapter.ts`;
  await Deno.writeTextFile(file, SCRIPT);
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--no-lock",
      "--config",
      CONFIG,
      ...(allowEnv ? [allowEnv] : []),
      file,
    ],
    clearEnv: true,
    env: {
      NO_COLOR: "1",
      DEEPSEEK_BASE_URL: "http://127.0.0.1:9",
      ...Object.fromEntries(
        ["PATH", "HOME", "DENO_DIR"].flatMap((name) => {
          const value = Deno.env.get(name);
          return value === undefined ? [] : [[name, value]];
        }),
      ),
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

Deno.test("DeepSeekAdapter says on stderr that it cannot read DEEPSEEK_BASE_URL, naming the flag", async () => {
  const { stdout, stderr } = await run("--allow-env=DEEPSEEK_API_KEY");
  equal(stdout.split("\n")[0], "https://api.deepseek.com");
  match(
    stderr,
    /Cannot read DEEPSEEK_BASE_URL: .*--allow-env=DEEPSEEK_API_KEY,DEEPSEEK_BASE_URL.*using https:\/\/api\.deepseek\.com/,
  );
});

Deno.test("DeepSeekAdapter reads DEEPSEEK_BASE_URL when it is granted, silently", async () => {
  const { stdout, stderr } = await run("--allow-env=DEEPSEEK_API_KEY,DEEPSEEK_BASE_URL");
  equal(stdout.split("\n")[0], "http://127.0.0.1:9");
  // DEEPSEEK_API_KEY is granted but unset: the usual "no API key".
  equal(
    stdout.split("\n")[1],
    "Cannot call DeepSeek: no API key; set DEEPSEEK_API_KEY or pass 'apiKey'",
  );
  ok(!stderr.includes("Cannot read"), stderr);
});

Deno.test("DeepSeekAdapter without --allow-env fails the turn naming the flag for the key", async () => {
  const { stdout } = await run(undefined);
  match(
    stdout,
    /DEEPSEEK_API_KEY cannot be read.*run with --allow-env=DEEPSEEK_API_KEY or pass 'apiKey'/,
  );
});
