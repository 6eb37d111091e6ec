/**
 * Drives the pinned `@deno/sandbox` SDK against `DENO_SANDBOX_ENDPOINT` (run by
 * executor_profile_test.ts under the agent's permission profile): create, a file write, a spawn
 * with piped output, detach, reattach by id, destroy. Prints `ok <id>` or the error's name and message.
 */
import { Sandbox } from "@deno/sandbox";

try {
  const created = await Sandbox.create({ allowNet: [], timeout: "5m" });
  await created.fs.writeTextFile("/tmp/probe.txt", "hi");
  const child = await created.spawn("bash", {
    args: ["-c", "cat /tmp/probe.txt"],
    stdout: "piped",
    stderr: "piped",
  });
  const output = await child.output();
  if (output.stdoutText !== "hi") {
    throw new Error(`spawn said ${JSON.stringify(output.stdoutText)}`);
  }
  await created.close();
  const again = await Sandbox.connect(created.id);
  await again.kill();
  console.log(`ok ${again.id}`);
} catch (error) {
  console.log(`failed ${(error as Error).name}: ${(error as Error).message}`);
}
Deno.exit(0);
