/**
 * Shared setup of the end-to-end tests of the agent on a Deno Sandbox executor: a config choosing
 * `executor` (user-level, or the project's), the folders, and the launcher's environment pointed
 * at the loopback stand-in.
 *
 * @module
 */
import { join } from "node:path";

/** The user-level `executor` of the end-to-end tests: a Deno Sandbox, no network. */
export const REMOTE_EXECUTOR = { provider: "deno-sandbox", allowNet: [], timeout: "10m" };

/**
 * Writes `executor` into the user-level config (or, with `project`, the workspace's `dsh.jsonc`)
 * under `root`; returns the workspace, the sessions folder and the launcher's environment (with
 * `DENO_DEPLOY_TOKEN` only when `standIn` has a token).
 */
export async function remoteWorkspace(
  root: string,
  standIn: { readonly endpoint: string; readonly token?: string },
  executor: unknown = REMOTE_EXECUTOR,
  project = false,
): Promise<{ ws: string; sessionsDir: string; env: Record<string, string> }> {
  const ws = join(root, "ws");
  await Deno.mkdir(join(root, "config", "dsh"), { recursive: true });
  await Deno.mkdir(ws, { recursive: true });
  await Deno.writeTextFile(
    project ? join(ws, "dsh.jsonc") : join(root, "config", "dsh", "dsh.jsonc"),
    JSON.stringify({ executor }),
  );
  return {
    ws,
    sessionsDir: join(root, "sessions"),
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: root,
      TMPDIR: root,
      XDG_CONFIG_HOME: join(root, "config"),
      XDG_STATE_HOME: join(root, "state"),
      DENO_SANDBOX_ENDPOINT: standIn.endpoint,
      ...(standIn.token === undefined ? {} : { DENO_DEPLOY_TOKEN: standIn.token }),
    },
  };
}
