/**
 * Private: the user's side of workspace trust. `trust [folder]` (the agent's subcommand, run
 * by the user in a terminal, never by a tool) prints what the folder's `dsh.jsonc` asks for and
 * records the grant; an untrusted session says what was left out and the exact command.
 *
 * @module
 */
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import type { ConfigTrust } from "./_config_layers.ts";
import { recordTrust, revokeTrust, TRUST_FILE } from "./_trust_store.ts";

/** `trust --help`. */
export const TRUST_HELP =
  `Usage: deno task agent trust [folder] [--config <file>] [--yes] [--revoke]

Trusts a folder's dsh.jsonc: until you do, dsh ignores everything in it that runs code or widens
access (plugins, MCP servers, the model endpoint, a weaker sandbox, roots, un-hidden paths, env
passing, allowRun, allow rules, sessionsDir). Prints what the config asks for and records the grant
in the trust records of your config folder ($XDG_CONFIG_HOME/dsh, default ~/.config/dsh), bound to
what it asks: a config that later asks for more is ignored again until you trust it again.

  folder           the workspace (default: the current folder)
  --config <file>  the project config (default: <folder>/dsh.jsonc)
  --yes, -y        record without asking (needed when stdin is not a terminal)
  --revoke         forget the folder's grant
`;

function quote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The exact command that trusts `folder`: the compiled binary's own path, else `deno task` of
 * this checkout's deno.json.
 */
export function trustCommandLine(folder: string, file?: string): string {
  const exec = Deno.execPath();
  const target = file === undefined || file === join(folder, "dsh.jsonc")
    ? quote(folder)
    : `${quote(folder)} --config ${quote(file)}`;
  if (!basename(exec).startsWith("deno")) return `${quote(exec)} trust ${target}`;
  const config = new URL("../deno.json", import.meta.url);
  const task = config.protocol === "file:"
    ? `deno task --config ${quote(config.pathname)} agent`
    : "deno task agent";
  return `${task} trust ${target}`;
}

/**
 * The session message (and stderr line) of an untrusted folder: what its config asks for that
 * was ignored, and how to grant it.
 *
 * @returns The text, or `undefined` when the folder is trusted or asks for nothing.
 */
export function trustNotice(trust: ConfigTrust | undefined): string | undefined {
  if (trust === undefined || trust.missing.length === 0) return undefined;
  // After an earlier grant, the items it did not cover are the new ones.
  const fresh = trust.missing.length < trust.asked.length
    ? new Set(trust.missing.map((m) => m.key))
    : new Set<string>();
  const shown = trust.asked.slice(0, 16).map((item) =>
    `- ${item.label}${fresh.has(item.key) ? " (new)" : ""}`
  );
  if (trust.asked.length > 16) shown.push(`- and ${trust.asked.length - 16} more`);
  return [
    `This folder's config (${trust.file}) is not trusted${
      fresh.size > 0 ? " for what it asks now" : ""
    }, so dsh ignored what it asks for and runs on safe defaults:`,
    ...shown,
    `If you trust this repository, run this in a terminal and restart the agent: ${
      trustCommandLine(trust.folder, trust.file)
    }`,
  ].join("\n");
}

/** One line for stderr. */
export function trustStderrLine(trust: ConfigTrust): string {
  return `[dsh] WARN trust: ${trust.file} is not trusted: ignored ${trust.missing.length} setting${
    trust.missing.length === 1 ? "" : "s"
  } (${[...new Set(trust.missing.map((m) => m.key.split(":")[0]))].join(", ")}); to grant: ${
    trustCommandLine(trust.folder, trust.file)
  }\n`;
}

/** Asks on the terminal; without one the grant needs `--yes`. */
function confirmed(): boolean {
  if (!Deno.stdin.isTerminal()) {
    throw new Error(
      "Cannot trust without a confirmation: run the command in a terminal, or pass --yes",
    );
  }
  return /^y(es)?$/i.test((prompt("Trust this folder for all of the above? [y/N]") ?? "").trim());
}

function print(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text.endsWith("\n") ? text : `${text}\n`));
}

/**
 * Runs `trust [folder] [--config <file>] [--revoke]`.
 *
 * @param args The arguments after `trust`.
 * @param cwd The folder relative paths resolve against.
 * @returns The exit code.
 * @throws {TypeError} On a bad argument.
 */
export async function runTrust(args: readonly string[], cwd: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      config: { type: "string" },
      revoke: { type: "boolean" },
      yes: { type: "boolean", short: "y" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    print(TRUST_HELP);
    return 0;
  }
  if (positionals.length > 1) {
    throw new TypeError(
      `Cannot trust: expected at most one folder: received ${JSON.stringify(positionals)}`,
    );
  }
  const folder = resolve(cwd, positionals[0] ?? ".");
  const { trust } = await loadConfig(folder, values.config);
  if (trust === undefined) {
    throw new Error(
      `Cannot trust ${folder}: ${
        values.config === undefined
          ? `it has no dsh.jsonc (${join(folder, "dsh.jsonc")})`
          : `${values.config} is not inside it`
      }`,
    );
  }
  if (trust.configDir === undefined) {
    throw new Error(`Cannot trust ${folder}: set HOME (or XDG_CONFIG_HOME) to record the grant`);
  }
  const store = join(trust.configDir, TRUST_FILE);
  if (values.revoke) {
    const had = await revokeTrust(trust.configDir, trust.folder);
    print(
      had ? `Revoked the trust of ${trust.folder} (${store}).` : `${trust.folder} was not trusted.`,
    );
    return 0;
  }
  const lines = trust.asked.length === 0
    ? ["It asks for nothing that needs trust."]
    : ["It asks for:", ...trust.asked.map((item) => `  - ${item.label}`)];
  print([`Folder ${trust.folder}, config ${trust.file}.`, ...lines].join("\n"));
  if (!values.yes && !confirmed()) {
    print(`Not trusted: nothing was recorded.`);
    return 1;
  }
  const record = await recordTrust(trust.configDir, trust.folder, trust.file, trust.asked);
  print(
    `Recorded in ${store} (${record.digest}). Restart the agent to apply it; a change that asks for more asks again.`,
  );
  return 0;
}
