/**
 * Private: which command runs a child Deno (the agent) under this process's run permission.
 *
 * @module
 */
function granted(command: string): boolean {
  return Deno.permissions.querySync({ name: "run", command }).state === "granted";
}

/** The `deno` found on PATH, or `undefined`. */
function denoOnPath(): string | undefined {
  let path: string | undefined;
  try {
    path = Deno.env.get("PATH");
  } catch {
    return undefined;
  }
  for (const dir of (path ?? "").split(":")) {
    if (dir === "") continue;
    try {
      const candidate = `${dir}/deno`;
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch { /* not here, or not readable */ }
  }
  return undefined;
}

function sameFile(a: string, b: string): boolean {
  try {
    return Deno.realPathSync(a) === Deno.realPathSync(b);
  } catch {
    return false;
  }
}

/**
 * The Deno executable that runs the agent: the one running the launcher (`Deno.execPath()`),
 * never another `deno` found on PATH, and always by absolute path. When the permission names
 * `deno` (as `deno task agent` does) and PATH's `deno` is this very binary through a symlink,
 * that symlink's path is used (Deno grants the path the name resolved to, not its target).
 *
 * @param who Who spawns, for the error message. @default {"the launcher"}
 * @returns The command to spawn.
 * @throws {Error} When `who` may not run this Deno, naming the flag that fixes it.
 *
 * @example Usage
 * ```ts ignore
 * import { denoCommand } from "./_deno_command.ts";
 * new Deno.Command(denoCommand(), { args: ["--version"] });
 * ```
 */
export function denoCommand(who = "the launcher"): string {
  const execPath = Deno.execPath();
  if (granted(execPath)) return execPath;
  const onPath = denoOnPath();
  // The same binary through a PATH symlink (what `--allow-run=deno` resolves to): its absolute path.
  if (onPath !== undefined && granted(onPath) && sameFile(onPath, execPath)) return onPath;
  const why = onPath === undefined
    ? "deno is not on PATH, so --allow-run=deno does not grant it"
    : sameFile(onPath, execPath)
    ? "its --allow-run does not include it"
    : `the deno on PATH (${onPath}) is another executable`;
  throw new Error(
    `Cannot start the agent: ${who} may not run the Deno executable ${
      JSON.stringify(execPath)
    } (${why}): run ${who} with --allow-run=${execPath}`,
  );
}
