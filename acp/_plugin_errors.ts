/**
 * Private: a plugin's load, probe or tool error as the user reads it in the editor. Deno's
 * wording assumes a `deno` command line the user does not have here, so it is translated: no
 * ANSI colours, no `Stack backtrace`, no `data:` URL of the permission probe, a bare import
 * names the `npm:` specifier that works, and a permission error names the plugin's
 * `permissions` export instead of a Deno flag.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { safeText } from "../core/safe_text.ts";

/** Permission kinds a plugin may declare (plugin_permissions.ts). */
const DECLARABLE = new Set(["net", "read", "write", "run", "env"]);

// deno-lint-ignore no-control-regex -- ANSI escape sequences start with ESC.
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;

/** Removes ANSI escape sequences (colours, cursor moves, OSC links). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/**
 * The text of a permission error thrown inside a plugin (Deno's `NotCapable`), rewritten to name
 * the declaration that grants it; `undefined` when the text is not one.
 *
 * @param text The error message.
 * @param plugin The plugin's specifier as written in dsh.jsonc.
 * @returns The rewritten message, or `undefined`.
 */
export function permissionErrorText(text: string, plugin: string): string | undefined {
  const match = /Requires (\w+) access to "?([^",]*)"?, run again with the --allow-\w+ flag/.exec(
    text,
  );
  if (match === null) return undefined;
  const [, kind = "", target = ""] = match;
  const what = target === "" ? `${kind} access` : `${kind} access to ${JSON.stringify(target)}`;
  if (!DECLARABLE.has(kind)) {
    return text.replace(
      match[0],
      `Requires ${what}: plugin ${
        JSON.stringify(plugin)
      } cannot be granted ${kind} access (a plugin may declare net, read, write, run and env)`,
    );
  }
  const entry = JSON.stringify(target === "" ? "…" : target);
  return text.replace(
    match[0],
    `Requires ${what}: add \`export const permissions = { ${kind}: [${entry}] }\` to plugin ${
      JSON.stringify(plugin)
    } and restart the agent (it grants what its plugins declare)`,
  );
}

/** A bare import (`"date-fns"`) that only an import map could resolve, rewritten; else `undefined`. */
function bareImportText(text: string): string | undefined {
  const match = /Import "([^"]+)" not a dependency and not in import map from "([^"]+)"/.exec(text);
  if (match === null) return undefined;
  const [, name = "", from = ""] = match;
  const where = from.startsWith("file://") ? decodeURIComponent(new URL(from).pathname) : from;
  return `${JSON.stringify(where)} imports ${
    JSON.stringify(name)
  } by its bare name, which the agent cannot resolve: it reads no import map or package.json of your project (a deno.json entry does not reach it). Import it with a version instead: ${
    JSON.stringify(`npm:${name}@<version>`)
  } (or "jsr:@scope/name@<version>" for a JSR package)`;
}

/**
 * Cleans Deno's output (stderr of `deno check` or of the probe, or an error message) for the
 * user: ANSI stripped, the `Stack backtrace` block, the hint and stack lines dropped, and the
 * probe's `data:` URL replaced.
 *
 * @param text The raw text.
 * @returns The cleaned text.
 */
export function cleanDenoText(text: string): string {
  const lines = stripAnsi(text).replace(/\r\n/g, "\n").split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^Stack backtrace:/.test(line)) {
      while (i + 1 < lines.length && /^\s+\d+: /.test(lines[i + 1]!)) i++;
      continue;
    }
    if (/^\s*at data:/.test(line)) continue;
    kept.push(line.replace(/data:application\/typescript;base64,[A-Za-z0-9+/=]+/g, "the probe"));
  }
  return kept.join("\n").trim();
}

/**
 * A plugin error for the editor: cleaned, translated (bare imports, permissions) and escaped.
 *
 * @param error The thrown value (or Deno's text).
 * @param plugin The plugin's specifier as written in dsh.jsonc.
 * @returns The message.
 */
export function pluginErrorText(error: unknown, plugin: string): string {
  const text = cleanDenoText(typeof error === "string" ? error : errorMessage(error));
  const translated = bareImportText(text) ?? permissionErrorText(text, plugin) ?? text;
  return safeText(translated, { multiline: true, maxChars: 4000 });
}
