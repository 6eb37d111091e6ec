/**
 * Runs the real trust command (`deno task agent trust <folder>`: the task's entry under the task's
 * flags) with a fake HOME, as a user would in a terminal.
 */
import { equal } from "node:assert/strict";

// The `agent` task (deno.json): its entry and its flags.
const AGENT = new URL("../../acp/dsh_agent.ts", import.meta.url).pathname;

/** The output of `trust` (stdout and stderr); fails the test unless it exits 0. */
export async function trustFolder(
  folder: string,
  home: string,
  extra: readonly string[] = [],
): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-env",
      "--allow-run=deno,bash",
      AGENT,
      "trust",
      "--yes",
      ...extra,
      folder,
    ],
    cwd: folder,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  equal(code, 0, text);
  return text;
}
