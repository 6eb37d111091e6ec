/**
 * The wording of Deno permission failures: name the exact flag to add, whoever runs the code (an
 * embedding script, a test, the agent binary).
 *
 * @module
 */

/**
 * The tail of a message for an operation Deno refused for lack of a permission.
 *
 * @param flag The exact flag that grants it, such as `--allow-run=bwrap`.
 * @returns `Deno denied it: add <flag> to the deno command`.
 *
 * @example Usage
 * ```ts
 * import { permissionHint } from "./permission_hint.ts";
 * import { equal } from "node:assert/strict";
 * equal(
 *   `Cannot run "bwrap": ${permissionHint("--allow-run=bwrap")}`,
 *   'Cannot run "bwrap": Deno denied it: add --allow-run=bwrap to the deno command',
 * );
 * ```
 */
export function permissionHint(flag: string): string {
  return `Deno denied it: add ${flag} to the deno command`;
}

/**
 * Checks up front that Deno may run every program a plugin needs, so a missing permission is
 * reported once with the complete flag instead of one failure at a time.
 *
 * @param action What needs the programs, for the message (`load the bash tool`).
 * @param programs Every program the plugin runs.
 * @throws {Deno.errors.NotCapable} Naming the programs Deno may not run and the `--allow-run`
 * flag that covers all of them.
 *
 * @example Usage
 * ```ts
 * import { assertRunPermissions } from "./permission_hint.ts";
 * assertRunPermissions("run the demo", []); // nothing to check
 * ```
 */
export function assertRunPermissions(action: string, programs: readonly string[]): void {
  const missing = programs.filter((command) =>
    Deno.permissions.querySync({ name: "run", command }).state !== "granted"
  );
  if (missing.length === 0) return;
  const names = missing.map((program) => JSON.stringify(program)).join(", ");
  throw new Deno.errors.NotCapable(
    `Cannot ${action}: Deno may not run ${names}: ${
      permissionHint(`--allow-run=${[...new Set(programs)].join(",")}`)
    }`,
  );
}

/**
 * The `host:port` a URL connects to: the exact form `--allow-net` takes (443 or 80 when the URL
 * names no port).
 *
 * @param url An http or https URL.
 * @returns The host and port.
 *
 * @example Usage
 * ```ts
 * import { netHost } from "./permission_hint.ts";
 * import { equal } from "node:assert/strict";
 * equal(netHost("https://api.deepseek.com"), "api.deepseek.com:443");
 * equal(netHost("http://127.0.0.1:8080/v1"), "127.0.0.1:8080");
 * ```
 */
export function netHost(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port !== "" ? parsed.port : parsed.protocol === "https:" ? "443" : "80";
  return `${parsed.hostname}:${port}`;
}
