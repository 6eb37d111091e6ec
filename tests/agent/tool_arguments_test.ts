import { deepEqual, equal, ok } from "node:assert/strict";
import { isJsonSnapshot } from "../../core/json.ts";
import { parseToolArguments } from "../../agent/_tool_arguments.ts";

function problem(text: string): string | undefined {
  const parsed = parseToolArguments(text);
  return "problem" in parsed ? parsed.problem.message : undefined;
}

Deno.test("parseToolArguments() keeps every number that arrives exactly", () => {
  const parsed = parseToolArguments(
    '{"a":9007199254740992,"b":-9007199254740991,"c":0.1,"d":1e21,"e":"9007199254740993","f":123456789012345}',
  );
  ok("args" in parsed);
  deepEqual(parsed.args, {
    a: 9007199254740992,
    b: -9007199254740991,
    c: 0.1,
    d: 1e21,
    e: "9007199254740993",
    f: 123456789012345,
  });
  ok(isJsonSnapshot(parsed.args));
});

Deno.test("parseToolArguments() names the path of a number that would change", () => {
  equal(
    problem('{"items":[{"id":1},{"id":-9007199254740993}]}'),
    '"items[1].id" is an integer that a JSON number cannot hold exactly (-9007199254740993 would arrive as -9007199254740992): send it as a string ("-9007199254740993") or as a smaller number',
  );
  equal(
    problem('{"n":1' + "0".repeat(400) + "}"),
    `"n" is an integer that a JSON number cannot hold exactly (1${
      "0".repeat(400)
    } overflows): send it as a string ("1${"0".repeat(400)}") or as a smaller number`,
  );
  equal(problem('{"limit":-1e999}'), '"limit" is not a finite JSON number (-Infinity)');
  equal(problem('{"offset":-0}'), '"offset" is not a JSON number (-0; send 0)');
  equal(
    problem("12345678901234567890"),
    'arguments is an integer that a JSON number cannot hold exactly (12345678901234567890 would arrive as 12345678901234567168): send it as a string ("12345678901234567890") or as a smaller number',
  );
  const syntax = parseToolArguments('{"a":');
  ok("problem" in syntax && syntax.problem.kind === "syntax");
});
