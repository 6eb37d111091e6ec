/** Shared by the jobs tests: a detached tree that reports a pid. */

/** Spawns `bash -c script` leading its own group and reads the pid the script echoes first. */
export async function spawnDetachedTree(
  script: string,
): Promise<{ readonly child: Deno.ChildProcess; readonly echoed: number }> {
  const child = new Deno.Command("bash", {
    args: ["-c", script],
    stdout: "piped",
    detached: true,
  }).spawn();
  const reader = child.stdout.getReader();
  const echoed = Number(new TextDecoder().decode((await reader.read()).value).trim());
  reader.releaseLock();
  return { child, echoed };
}
