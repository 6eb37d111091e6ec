/**
 * The checks a tool definition passes at registration (name, description, execute, timeout,
 * lossless JSON Schema parameters).
 *
 * @module
 */
import { describeValue, errorMessage } from "../core/error_message.ts";
import { type JsonValue, snapshotJson } from "../core/json.ts";
import type { AnyToolDefinition, JsonSchema } from "../tools/definition.ts";
import { TOOL_NAME_REGEXP } from "../tools/define_tool.ts";
import type { ToolSchema } from "./types.ts";

/** Checks a definition and returns its frozen model-facing schema. */
export function checkDefinition(definition: AnyToolDefinition): ToolSchema {
  if (typeof definition !== "object" || definition === null) {
    throw new TypeError(
      `Cannot register a tool: expected a definition object, received ${describeValue(definition)}`,
    );
  }
  const { name, description, parameters, execute } = definition;
  if (typeof name !== "string" || !TOOL_NAME_REGEXP.test(name)) {
    throw new TypeError(
      `Cannot register a tool: name is ${
        describeValue(name)
      }, expected a string matching ${TOOL_NAME_REGEXP}`,
    );
  }
  if (typeof description !== "string") {
    throw new TypeError(
      `Cannot register tool "${name}": description must be a string, received ${
        describeValue(description)
      }`,
    );
  }
  if (typeof execute !== "function") {
    throw new TypeError(
      `Cannot register tool "${name}": execute must be a function, received ${
        describeValue(execute)
      }`,
    );
  }
  if (definition.timeoutMs !== undefined) {
    assertPositive(`tool "${name}" timeoutMs`, definition.timeoutMs);
  }
  let schema: JsonValue;
  try {
    schema = snapshotJson(parameters);
  } catch (error) {
    throw new TypeError(
      `Cannot register tool "${name}": parameters must be lossless JSON: ${errorMessage(error)}`,
    );
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError(
      `Cannot register tool "${name}": parameters must be a JSON Schema object, received ${
        describeValue(schema)
      }`,
    );
  }
  return Object.freeze({ name, description, parameters: schema as JsonSchema });
}

/** Throws a RangeError unless `value` is a positive finite number. */
export function assertPositive(what: string, value: number): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `Cannot use ${what}: current value is ${
        describeValue(value)
      }, expected a positive finite number`,
    );
  }
}
