/** Helpers for the sandbox tests: run a bwrap argv the way the executor does (launcher + filter). */
import { launcherArgv, sandboxFilter } from "../../builtins/sandbox.ts";

/**
 * Runs `prefix… sh -c … dsh-launch bwrapArgv…` with the seccomp program on the launcher's
 * stdin, as the executor spawns it (prefix: for example `setpriv --reuid=65534 …`).
 */
export async function runBwrap(
  bwrapArgv: readonly string[],
  prefix: readonly string[] = [],
  seccomp = true,
): Promise<{ code: number; out: string }> {
  const argv = [...prefix, ...(seccomp ? launcherArgv(bwrapArgv) : bwrapArgv)];
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    stdin: seccomp ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
  }).spawn();
  if (seccomp) {
    const writer = child.stdin.getWriter();
    await writer.write(sandboxFilter());
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return { code: output.code, out: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}
