/**
 * The mechanical scorer of argument errors: five points per mistake (names the path, names what
 * was expected, names what was received, at most 400 characters, and a repairer that reads only
 * the message and the original argument text produces an accepted call).
 *
 * The repairer is generic: it reads the structured parts of dsh's message shape
 * (`<path>: expected …, received …; fix: <fix>`) and, for the AI SDK comparison, the zod issue
 * JSON the AI SDK embeds (`Error message: [ { "code": …, "path": […] } ]`). It knows no fixture.
 */
import { parseCallArguments } from "../../agent/_tool_arguments.ts";
import { defineTool } from "../../tools/define_tool.ts";
import type { ToolDefinition } from "../../tools/definition.ts";
import { errorMessage } from "../../core/error_message.ts";
import { TOOLS } from "./arg_errors_fixtures.ts";
import type { Mistake } from "./arg_errors_mistakes.ts";

/** A system under test: `undefined` when it accepts the argument text, else its message. */
export type Check = (tool: string, text: string) => Promise<string | undefined>;

/** One system's totals. */
export interface Score {
  readonly total: number;
  readonly detected: number;
  readonly path: number;
  readonly expected: number;
  readonly received: number;
  readonly short: number;
  readonly fixed: number;
  /** The mistakes detected but not fixed in one repair, with their message. */
  readonly unfixed: readonly { readonly mistake: Mistake; readonly message: string }[];
}

function dshTools(form: "dsl" | "zod"): Map<string, ToolDefinition> {
  return new Map(TOOLS.map((t) => [
    t.name,
    form === "dsl"
      ? defineTool({
        name: t.name,
        description: t.name,
        parameters: t.dsl,
        execute: (args) => (t.checks(args as Record<string, unknown>), []),
      }) as unknown as ToolDefinition
      : defineTool({
        name: t.name,
        description: t.name,
        parameters: t.zod,
        execute: () => [],
      }) as unknown as ToolDefinition,
  ]));
}

/** dsh with the tools in the schema DSL (`"dsl"`) or zod 4 (`"zod"`): parse, validate, run. */
export function dshCheck(form: "dsl" | "zod"): Check {
  const tools = dshTools(form);
  return async (name, text) => {
    const tool = tools.get(name)!;
    const parsed = parseCallArguments(text, () => tool.parameters);
    if ("problem" in parsed) return `invalid arguments: ${parsed.problem.message}`;
    try {
      await tool.execute(parsed.args as never, {} as never);
      return undefined;
    } catch (error) {
      return errorMessage(error);
    }
  };
}

/** Scores one system over the mistakes. */
export async function score(check: Check, mistakes: readonly Mistake[]): Promise<Score> {
  const totals = { detected: 0, path: 0, expected: 0, received: 0, short: 0, fixed: 0 };
  const unfixed: { mistake: Mistake; message: string }[] = [];
  for (const mistake of mistakes) {
    const message = await check(mistake.tool, mistake.text);
    if (message === undefined) continue;
    totals.detected++;
    if (namesPath(message, mistake.path)) totals.path++;
    if (mistake.expected.some((word) => message.includes(word))) totals.expected++;
    if (mistake.received.some((word) => message.includes(word))) totals.received++;
    if (message.length <= 400) totals.short++;
    const repaired = repair(mistake.text, message);
    if (repaired !== undefined && await check(mistake.tool, repaired) === undefined) totals.fixed++;
    else unfixed.push({ mistake, message });
  }
  return { total: mistakes.length, ...totals, unfixed };
}

function namesPath(message: string, path: string): boolean {
  if (path === "") return /arguments|position|"path":\s*\[\]/.test(message);
  if (message.includes(JSON.stringify(path))) return true;
  const segments = pathSegments(path);
  return message.replace(/\s/g, "").includes(`"path":${JSON.stringify(segments)}`);
}

/** The summary line of a score. */
export function summary(name: string, s: Score): string {
  return `${name}: detected ${s.detected}/${s.total}, names path ${s.path}, expected ${s.expected}, received ${s.received}, short ${s.short}, fixed in one repair ${s.fixed}/${s.total} (${
    Math.round(100 * s.fixed / Math.max(1, s.detected))
  }% of detected)`;
}

// ---- The repairer -------------------------------------------------------------------------

function pathSegments(path: string): (string | number)[] {
  return (path.match(/[^.[\]]+|\[\d+\]/g) ?? []).map((s) =>
    s.startsWith("[") ? Number(s.slice(1, -1)) : s
  );
}

/** The violations of a message: the one after `invalid arguments: `, or the `- ` lines. */
function violationsOf(message: string): string[] {
  const body = message.replace(/^(Error: )?invalid arguments(?: \(\d+ problems\))?:\s*/, "");
  return body.includes("\n- ") || body.startsWith("- ")
    ? body.split("\n").map((l) => l.replace(/^- /, "")).filter((l) => l !== "")
    : [body];
}

/** The leading path of a violation: `arguments` is the root. */
function leadingPath(violation: string): { path: string; rest: string } | undefined {
  if (violation.startsWith("arguments:")) return { path: "", rest: violation.slice(10) };
  const match = /^("(?:[^"\\]|\\.)*"):/.exec(violation);
  return match === null ? undefined : {
    path: JSON.parse(match[1]!),
    rest: violation.slice(match[0].length),
  };
}

/** Repairs the argument text from the message alone; `undefined` when it cannot. */
export function repair(text: string, message: string): string | undefined {
  try {
    return repairOnce(text, message);
  } catch {
    return undefined;
  }
}

function repairOnce(text: string, message: string): string | undefined {
  const zodIssues = /Error message: (\[[\s\S]*\])\s*$/.exec(message);
  if (zodIssues !== null) return repairZodIssues(text, zodIssues[1]!);
  let args: unknown;
  let changed = false;
  for (const violation of violationsOf(message)) {
    const at = leadingPath(violation);
    const fixAt = violation.lastIndexOf("; fix: ");
    if (at === undefined || fixAt < 0) continue;
    const fix = violation.slice(fixAt + 7);
    const syntax = repairText(text, fix);
    if (syntax !== undefined) return syntax;
    if (args === undefined) {
      try {
        args = JSON.parse(text);
      } catch {
        return undefined;
      }
    }
    const next = applyFix(args, pathSegments(at.path), fix);
    if (next !== undefined) [args, changed] = [next.args, true];
  }
  return changed ? JSON.stringify(args) : undefined;
}

/** The text fixes of malformed JSON. */
function repairText(text: string, fix: string): string | undefined {
  let match = /^delete the "," at position (\d+)(?: and append (".*"))?/.exec(fix);
  if (match !== null) {
    const at = Number(match[1]);
    const tail = match[2] === undefined ? "" : JSON.parse(match[2]) as string;
    return text.slice(0, at) + text.slice(at + 1) + tail;
  }
  match = /^append (".*")$/.exec(fix);
  if (match !== null) return text + JSON.parse(match[1]!);
  if (fix.startsWith("use double quotes")) return text.replaceAll("'", '"');
  match = /^delete the text from position (\d+)(?: and append (".*"))?/.exec(fix);
  if (match !== null) {
    return text.slice(0, Number(match[1])) + (match[2] === undefined ? "" : JSON.parse(match[2]));
  }
  match = /^quote the key at position (\d+): write "(.*)"$/.exec(fix);
  if (match !== null) {
    const at = Number(match[1]);
    return `${text.slice(0, at)}"${match[2]}"${text.slice(at + match[2]!.length)}`;
  }
  return undefined;
}

type Json = unknown;

function applyFix(args: Json, path: (string | number)[], fix: string): { args: Json } | undefined {
  if (fix.startsWith("send the object itself") && typeof args === "string") {
    return { args: JSON.parse(args) };
  }
  if (fix.startsWith("omit the key")) return { args: remove(args, path) };
  const rename = /^rename ("(?:[^"\\]|\\.)*") to ("(?:[^"\\]|\\.)*")/.exec(fix);
  if (rename !== null) {
    const parent = path.slice(0, -1);
    const from = [...parent, JSON.parse(rename[1]!) as string];
    const to = [...parent, JSON.parse(rename[2]!) as string];
    // The same rename may be named twice (on the unknown key and on the missing one).
    if (get(args, from) === undefined) return { args };
    return { args: remove(put(args, to, get(args, from)), from) };
  }
  if (fix.startsWith("send the JSON value the string holds")) {
    return { args: put(args, path, JSON.parse(String(get(args, path)))) };
  }
  const length = /^send at most (\d+) (characters?|items?)/.exec(fix);
  if (length !== null) {
    return { args: put(args, path, (get(args, path) as string).slice(0, Number(length[1]))) };
  }
  const least = /^send at least (\d+) (characters?|items?)/.exec(fix);
  if (least !== null) return { args: put(args, path, "x".repeat(Number(least[1]))) };
  const value = sentValue(fix);
  return value === undefined ? undefined : { args: put(args, path, value.value) };
}

/** The JSON value a `send …` fix names: right after `send`, or after `such as`. */
function sentValue(fix: string): { value: Json } | undefined {
  for (const candidate of [fix.replace(/^send /, ""), fix.replace(/^.* such as /, "")]) {
    try {
      return { value: JSON.parse(candidate) };
    } catch {
      // Not JSON: try the next reading.
    }
  }
  return undefined;
}

function get(args: Json, path: (string | number)[]): Json {
  let value = args;
  for (const key of path) value = (value as Record<string | number, Json> | undefined)?.[key];
  return value;
}

function put(args: Json, path: (string | number)[], value: Json): Json {
  if (path.length === 0) return value;
  const copy = structuredClone(args ?? {}) as Record<string | number, Json>;
  let target = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof target[key] !== "object" || target[key] === null) target[key] = {};
    target = target[key] as Record<string | number, Json>;
  }
  target[path[path.length - 1]!] = value;
  return copy;
}

function remove(args: Json, path: (string | number)[]): Json {
  const copy = structuredClone(args) as Record<string | number, Json>;
  const parent = get(copy, path.slice(0, -1)) as Record<string | number, Json> | undefined;
  if (parent !== undefined && parent !== null) delete parent[path[path.length - 1]!];
  return copy;
}

/** The AI SDK reading: zod issues as JSON (code, path, expected, values, bounds, keys). */
function repairZodIssues(text: string, issuesText: string): string | undefined {
  let issues: Record<string, unknown>[];
  let args: Json;
  try {
    issues = JSON.parse(issuesText);
    args = JSON.parse(text);
  } catch {
    return undefined;
  }
  for (const issue of issues) {
    const path = (issue.path ?? []) as (string | number)[];
    const current = get(args, path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys as string[]) args = remove(args, [...path, key]);
    } else if (issue.code === "invalid_value" && Array.isArray(issue.values)) {
      args = put(args, path, issue.values[0]);
    } else if (issue.code === "too_big") args = put(args, path, issue.maximum);
    else if (issue.code === "too_small") args = put(args, path, issue.minimum);
    else if (issue.code === "invalid_type") {
      args = put(args, path, fromType(String(issue.expected), current));
    } else return undefined;
  }
  return JSON.stringify(args);
}

function fromType(expected: string, current: Json): Json {
  switch (expected) {
    case "number":
    case "int":
      return typeof current === "string" && Number.isFinite(Number(current))
        ? Math.round(Number(current))
        : 1;
    case "string":
      return current === undefined || current === null ? "x" : String(current);
    case "boolean":
      return current === "true" || current === 1;
    case "array":
      return current === undefined ? [] : [current];
    case "object":
      return typeof current === "string" ? JSON.parse(current) : {};
    default:
      return null;
  }
}
