/** Helpers for the stand-in tests: SDK options, a bash runner, host path existence. */
import type { Sandbox } from "@deno/sandbox";
import type { SandboxStandIn } from "../../testing/mod.ts";

/** The SDK options that point it at the stand-in (no env needed). */
export function sdkOptions(standIn: SandboxStandIn): { sandboxEndpoint: string; token: string } {
  return { sandboxEndpoint: standIn.endpoint, token: standIn.token };
}

/** Runs a bash script in the sandbox with piped output and collects it. */
export async function run(sandbox: Sandbox, script: string): Promise<{
  pid: number;
  status: { success: boolean; code: number; signal: string | null };
  stdoutText: string;
  stderrText: string;
}> {
  const child = await sandbox.spawn("bash", {
    args: ["-c", script],
    stdout: "piped",
    stderr: "piped",
  });
  const output = await child.output();
  return {
    pid: child.pid,
    status: output.status,
    stdoutText: output.stdoutText ?? "",
    stderrText: output.stderrText ?? "",
  };
}

/** Whether a host path exists. */
export async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
