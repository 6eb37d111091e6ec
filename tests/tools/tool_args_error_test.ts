import { deepEqual, equal, ok } from "node:assert/strict";
import { ToolArgsError } from "../../tools/tool_args_error.ts";
import { HarnessError } from "../../core/errors.ts";

Deno.test("ToolArgsError joins violations into the model-facing message", () => {
  const violations = ['missing required property "path"', '"limit" must be a number'];
  const error = new ToolArgsError(violations, { cause: "c" });
  ok(error instanceof HarnessError);
  equal(error.name, "ToolArgsError");
  equal(error.code, "INVALID_ARGS");
  equal(
    error.message,
    'invalid arguments (2 problems):\n- missing required property "path"\n- "limit" must be a number',
  );
  deepEqual(error.violations, violations);
  ok(Object.isFrozen(error.violations) && error.violations !== violations);
  equal(error.cause, "c");
});
