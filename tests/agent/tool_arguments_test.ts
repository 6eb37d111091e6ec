import { deepEqual, equal, ok } from "node:assert/strict";
import { isJsonSnapshot } from "../../core/json.ts";
import { parseToolArguments } from "../../agent/_tool_arguments.ts";
import { findJsonSyntaxProblem } from "../../agent/_json_syntax.ts";

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
    '"items[1].id": expected a number a double holds exactly, received number -9007199254740993 (too large for a JSON number to hold exactly: it would arrive as -9007199254740992); fix: send it as a string ("-9007199254740993") if the tool accepts one, or a smaller number',
  );
  ok(problem('{"n":1' + "0".repeat(400) + "}")!.includes("it overflows"));
  ok(problem('{"n":1' + "0".repeat(400) + "}")!.length <= 400);
  equal(problem('{"limit":-1e999}'), '"limit" is not a finite JSON number (-Infinity)');
  equal(problem('{"offset":-0}'), '"offset" is not a JSON number (-0; send 0)');
});

Deno.test("parseToolArguments() gives big-integer advice that fits the schema at the path", () => {
  const schema = {
    type: "object",
    properties: {
      ticket: { type: "string" },
      count: { type: "integer", minimum: 1, maximum: 1000 },
      id: { type: "integer" },
    },
  } as const;
  const at = (text: string) => {
    const parsed = parseToolArguments(text, () => schema);
    return "problem" in parsed ? parsed.problem.message : "";
  };
  ok(at('{"ticket":12345678901234567890}').endsWith('fix: send "12345678901234567890"'));
  const count = at('{"count":9007199254740993}');
  ok(count.includes("expected integer from 1 to 1000"), count);
  ok(count.includes("out of the representable range"), count);
  ok(count.endsWith("fix: send an integer from 1 to 1000 such as 1000"), count);
  ok(!count.includes("as a string"), count);
  ok(at('{"id":90071992547409931}').includes("-9007199254740991 to 9007199254740991"));
});

Deno.test("parseToolArguments() names the position, the token and a fix of malformed JSON", () => {
  const at = (text: string) => {
    const parsed = parseToolArguments(text);
    return "problem" in parsed ? parsed.problem.message : "";
  };
  const comma = at('{"a": 1,}');
  ok(comma.includes("a trailing comma at position 7"), comma);
  ok(comma.includes('token ","'), comma);
  ok(comma.endsWith('fix: delete the "," at position 7'), comma);
  ok(at("{'a': 1}").includes("single quotes at position 1"));
  ok(at('{"a": [1, 2').endsWith('fix: append "]}"'));
  ok(at('{"a": 1, "b').endsWith('fix: delete the text from position 7 and append "}"'));
  ok(at("{a: 1}").includes("an unquoted key at position 1"));
  ok(at('{"a": 1} x').includes("text after the end of the JSON value at position 9"));
  ok(at(`[${"[".repeat(20000)}`).includes("cut short"));
});

Deno.test("parseToolArguments() passes double-encoded arguments on as a string (the validator names them)", () => {
  const parsed = parseToolArguments(JSON.stringify(JSON.stringify({ a: 1 })));
  ok("args" in parsed && parsed.args === '{"a":1}');
});

Deno.test("parseToolArguments() keeps checking after the root", () => {
  const syntax = parseToolArguments('{"a":');
  ok("problem" in syntax && syntax.problem.kind === "syntax");
});

/** Applies the text fixes a syntax message names (what a model or a repairer would do). */
function applyTextFix(text: string, fix: string): string | undefined {
  let m = /^delete the "," at position (\d+)$/.exec(fix);
  if (m) return text.slice(0, Number(m[1])) + text.slice(Number(m[1]) + 1);
  m = /^append (".*")$/.exec(fix);
  if (m) return text + JSON.parse(m[1]!);
  m = /^delete the text from position (\d+)(?: and append (".*"))?$/.exec(fix);
  if (m) return text.slice(0, Number(m[1])) + (m[2] === undefined ? "" : JSON.parse(m[2]));
  return undefined;
}

Deno.test("findJsonSyntaxProblem(): every cut-short prefix gets a fix that makes valid JSON", () => {
  const docs = [
    '{"a": [1, 2, {"b": "x\\"y\\\\", "c": null}], "d": true, "e": -1.5e3, "f": {}}',
    '[{"k": "v"}, [], [[false]], "s", 0, 12.25E-2, "\\u00e9\\u2028"]',
    '{\n  "file_path": "/a",\n  "opts": {"n": 1, "tags": ["x", "y"]}\n}',
  ];
  for (const doc of docs) {
    for (let i = 1; i <= doc.length; i++) {
      const text = doc.slice(0, i);
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      const problem = findJsonSyntaxProblem(text);
      if (valid) {
        equal(problem, undefined, text);
        continue;
      }
      ok(problem !== undefined, text);
      const fixed = applyTextFix(text, problem.fix);
      ok(fixed !== undefined, `${text}: ${problem.fix}`);
      JSON.parse(fixed);
    }
  }
});

Deno.test("findJsonSyntaxProblem() finds a problem in every mangled text and never throws", () => {
  const doc = '{"a": [1, {"b": "c"}], "d": "e\\n", "f": false}';
  for (let i = 0; i < doc.length; i++) {
    for (
      const mangled of [doc.slice(0, i) + doc.slice(i + 1), doc.slice(0, i) + "'" + doc.slice(i)]
    ) {
      let valid = true;
      try {
        JSON.parse(mangled);
      } catch {
        valid = false;
      }
      const problem = findJsonSyntaxProblem(mangled);
      equal(problem === undefined, valid, mangled);
      if (problem !== undefined) ok(problem.position <= mangled.length, mangled);
    }
  }
});
