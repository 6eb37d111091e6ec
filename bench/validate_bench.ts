/**
 * defineTool validation versus a bare ajv validator on the same emitted schema.
 * Run: `deno bench -A bench/validate_bench.ts`.
 */
import { Ajv } from "ajv";
import { compileValidator } from "../tools/validate.ts";
import { defineTool } from "../tools/define_tool.ts";
import type { ParametersSpec } from "../tools/schema.ts";
import type { ToolExecution } from "../tools/definition.ts";
import { snapshotJson } from "../core/json.ts";

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, logger: false });
const exec = {} as ToolExecution;
const NOOP: [] = [];

function scenario(group: string, parameters: ParametersSpec, args: unknown): void {
  const validate = compileValidator(parameters);
  const bare = ajv.compile(validate.schema);
  const tool = defineTool({ name: "t", description: "Bench.", parameters, execute: () => NOOP });
  // Check each case's output once before timing.
  if (!bare(args) || validate(args).length !== 0 || tool.execute(args as never, exec) !== NOOP) {
    throw new Error(`${group}: arguments must be valid`);
  }
  Deno.bench({ group, name: "bare ajv", baseline: true, fn: () => void bare(args) });
  Deno.bench({ group, name: "compileValidator", fn: () => void validate(args) });
  Deno.bench({
    group,
    name: "defineTool execute",
    fn: () => void tool.execute(args as never, exec),
  });
  // What the registry hands to execute: a snapshotJson root, so only ajv runs.
  const snapshot = snapshotJson(args);
  Deno.bench({ group, name: "bare ajv (registry snapshot)", fn: () => void bare(snapshot) });
  Deno.bench({
    group,
    name: "defineTool execute (registry snapshot)",
    fn: () => void tool.execute(snapshot as never, exec),
  });
}

scenario("read_file", {
  path: { type: "string", required: true, description: "Absolute path" },
  limit: { type: "number" },
}, JSON.parse('{"path":"/etc/hosts","limit":100}'));

scenario(
  "nested",
  {
    edits: {
      type: "array",
      required: true,
      items: {
        type: "object",
        properties: {
          path: { type: "string", required: true },
          mode: { type: "string", enum: ["replace", "insert", "delete"] },
          lines: { type: "array", items: { type: "integer" } },
        },
      },
    },
    dryRun: { type: "boolean" },
  },
  JSON.parse(JSON.stringify({
    edits: Array.from({ length: 8 }, (_, i) => ({
      path: `/src/f${i}.ts`,
      mode: "replace",
      lines: [1, 2, 3, 4],
    })),
    dryRun: false,
  })),
);

const invalidValidate = compileValidator({
  path: { type: "string", required: true },
  limit: { type: "number" },
});
const invalidBare = ajv.compile(invalidValidate.schema);
const invalidArgs = { limit: "100" };
Deno.bench({
  group: "invalid (messages)",
  name: "bare ajv + errorsText",
  baseline: true,
  fn: () => void (invalidBare(invalidArgs) || ajv.errorsText(invalidBare.errors)),
});
Deno.bench({
  group: "invalid (messages)",
  name: "compileValidator",
  fn: () => void invalidValidate(invalidArgs),
});
