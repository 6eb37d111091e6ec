import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { AGENT_HELP, AGENT_VERSION, bannerLine } from "../../acp/_cli.ts";
import { tempDir } from "../_helpers.ts";

const MAIN = new URL("../../acp/main.ts", import.meta.url).pathname;
const LAUNCH = new URL("../../acp/launch.ts", import.meta.url).pathname;

async function run(args: string[], cwd: string) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code,
    stdout: new TextDecoder().decode(stdout),
    stderr: new TextDecoder().decode(stderr),
  };
}

Deno.test("AGENT_VERSION is the package version", async () => {
  const { version } = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  );
  equal(AGENT_VERSION, version);
});

Deno.test("agent --help and --version print and exit 0, even with a broken dsh.jsonc", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "dsh.jsonc"), "{ broken");
  const launcher = ["run", "--quiet", "--allow-read", "--allow-env", "--allow-run=deno", LAUNCH];
  for (const args of [["run", "--quiet", "--allow-read", MAIN], launcher]) {
    const help = await run([...args, "--help"], dir.path);
    equal(help.code, 0, help.stderr);
    equal(help.stdout.trimEnd(), AGENT_HELP.trimEnd());
    match(help.stdout, /--config <file>/);
    const version = await run([...args, "-V"], dir.path);
    equal(version.code, 0, version.stderr);
    equal(version.stdout, `dsh-agent ${AGENT_VERSION}\n`);
  }
});

Deno.test("bannerLine() names the model, the sandbox, the config and the tool count", () => {
  const line = bannerLine({
    model: "deepseek-chat",
    sandbox: "off",
    configFile: "/w/dsh.jsonc",
    tools: 7,
  });
  equal(
    line,
    `[dsh] dsh-agent ${AGENT_VERSION} · model deepseek-chat · sandbox off · config /w/dsh.jsonc · 7 tools · ACP on stdio\n`,
  );
  ok(
    bannerLine({ model: "demo", sandbox: "off", configFile: undefined, tools: 1 }).includes(
      "config (none: defaults) · 1 tool ·",
    ),
  );
});
