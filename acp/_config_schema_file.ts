/**
 * Writes `dsh.schema.json` (the JSON Schema of `dsh.jsonc`) from the config field table:
 * `deno task schema`. A test checks that the committed file equals {@linkcode configSchemaText}.
 *
 * @module
 */
import { configJsonSchema } from "./config.ts";

/** Where the schema file lives: the package root. */
export const CONFIG_SCHEMA_FILE: URL = new URL("../dsh.schema.json", import.meta.url);

/**
 * The schema file's text (two-space JSON and a final newline, as `deno fmt` keeps it).
 *
 * @returns The text.
 */
export function configSchemaText(): string {
  return JSON.stringify(configJsonSchema(), null, 2) + "\n";
}

if (import.meta.main) {
  await Deno.writeTextFile(CONFIG_SCHEMA_FILE, configSchemaText());
  console.log(`wrote ${CONFIG_SCHEMA_FILE.pathname}`);
}
