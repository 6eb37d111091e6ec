/**
 * Synthetic argument mistakes over the suite tools: the argument text a model might send, the
 * path of the mistake, and the words that show a message names what was expected and received.
 */
import { TOOLS } from "./arg_errors_fixtures.ts";

/** One mistake. */
export interface Mistake {
  readonly tool: string;
  readonly kind: string;
  /** The argument text as the model sent it. */
  readonly text: string;
  /** Dotted path of the mistake (`""` for the whole arguments). */
  readonly path: string;
  /** Any of these in the message names what was expected. */
  readonly expected: readonly string[];
  /** Any of these in the message names what was received. */
  readonly received: readonly string[];
}

type Edit = (args: Record<string, unknown>) => void;

function valid(tool: string): Record<string, unknown> {
  return structuredClone(TOOLS.find((t) => t.name === tool)!.valid);
}

function segments(path: string): (string | number)[] {
  return (path.match(/[^.[\]]+|\[\d+\]/g) ?? []).map((s) =>
    s.startsWith("[") ? Number(s.slice(1, -1)) : s
  );
}

function setAt(args: Record<string, unknown>, path: string, value: unknown): void {
  const keys = segments(path);
  let target = args as Record<string | number, unknown>;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  target[keys[keys.length - 1]!] = value;
}

function deleteAt(args: Record<string, unknown>, path: string): void {
  const keys = segments(path);
  let target = args as Record<string | number, unknown>;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  delete target[keys[keys.length - 1]!];
}

function edited(tool: string, edit: Edit): string {
  const args = valid(tool);
  edit(args);
  return JSON.stringify(args);
}

const out: Mistake[] = [];
function add(
  tool: string,
  kind: string,
  path: string,
  text: string,
  expected: readonly string[],
  received: readonly string[],
): void {
  out.push({ tool, kind, text, path, expected, received });
}

function wrongType(tool: string, path: string, value: unknown, expected: readonly string[]) {
  const text = edited(tool, (a) => setAt(a, path, value));
  add(tool, "wrong type", path, text, expected, [JSON.stringify(value)]);
}
function missing(tool: string, path: string, expected: readonly string[]) {
  add(tool, "missing field", path, edited(tool, (a) => deleteAt(a, path)), expected, [
    "missing",
    "undefined",
  ]);
}
function extraKey(tool: string, path: string, value: unknown) {
  const key = segments(path).at(-1) as string;
  add(tool, "extra key", path, edited(tool, (a) => setAt(a, path, value)), [
    "declared",
    "nrecognized",
    "no key",
  ], [JSON.stringify(key)]);
}
function renamed(tool: string, from: string, to: string) {
  const text = edited(tool, (a) => {
    a[from] = a[to];
    delete a[to];
  });
  add(tool, "misspelled key", to, text, ["string", "required"], ["missing", "undefined"]);
}
function nullField(tool: string, path: string, expected: readonly string[]) {
  add(tool, "null", path, edited(tool, (a) => setAt(a, path, null)), expected, ["null"]);
}
function enumTypo(tool: string, path: string, value: string, allowed: readonly string[]) {
  add(tool, "enum typo", path, edited(tool, (a) => setAt(a, path, value)), allowed, [
    JSON.stringify(value),
  ]);
}
function outOfRange(tool: string, path: string, value: number, bounds: readonly string[]) {
  add(tool, "out of range", path, edited(tool, (a) => setAt(a, path, value)), bounds, [
    String(value),
  ]);
}
function fractional(tool: string, path: string, value: number) {
  add(tool, "fractional integer", path, edited(tool, (a) => setAt(a, path, value)), [
    "integer",
    "int",
  ], [
    String(value),
  ]);
}
function nesting(tool: string, path: string, value: unknown, expected: readonly string[]) {
  add(tool, "wrong nesting", path, edited(tool, (a) => setAt(a, path, value)), expected, [
    "string",
    "array",
    "object",
  ]);
}
function syntax(tool: string, kind: string, mangle: (json: string) => string) {
  add(tool, kind, "", mangle(JSON.stringify(valid(tool))), ["JSON"], ["position", "token"]);
}
function bigInteger(tool: string, path: string, literal: string, expected: readonly string[]) {
  const text = edited(tool, (a) => setAt(a, path, 424242)).replace("424242", literal);
  add(tool, "big integer", path, text, expected, [literal]);
}
function doubleEncoded(tool: string) {
  add(tool, "double-encoded", "", JSON.stringify(JSON.stringify(valid(tool))), ["object"], [
    "string",
    "JSON string",
  ]);
}

const trailingComma = (json: string) => `${json.slice(0, -1)},}`;
const singleQuotes = (json: string) => json.replaceAll('"', "'");
const cutShort = (json: string) => json.slice(0, Math.max(2, json.length - 7));
const INT = ["integer", "number"];

wrongType("read_file", "limit", "50", INT);
wrongType("read_file", "offset", true, INT);
missing("read_file", "file_path", ["string"]);
renamed("read_file", "filepath", "file_path");
nullField("read_file", "offset", INT);
outOfRange("read_file", "limit", 5000, ["2000"]);
fractional("read_file", "offset", 2.5);
syntax("read_file", "trailing comma", trailingComma);

wrongType("search", "max_results", "20", INT);
wrongType("search", "case_sensitive", "false", ["boolean"]);
enumTypo("search", "mode", "regx", ["regex"]);
enumTypo("search", "mode", "Literal", ["literal"]);
outOfRange("search", "max_results", 0, ["1"]);
nullField("search", "mode", ["literal", "regex"]);
extraKey("search", "limit", 5);
syntax("search", "single quotes", singleQuotes);
doubleEncoded("search");

missing("create_order", "shipping.method", ["ground", "air"]);
missing("create_order", "shipping.address", ["string"]);
wrongType("create_order", "items[2].qty", "3", INT);
outOfRange("create_order", "items[1].qty", 0, ["1"]);
fractional("create_order", "items[0].qty", 1.5);
enumTypo("create_order", "shipping.method", "overnight", ["ground", "air", "express"]);
nesting("create_order", "shipping", "ground, 1 Main St", ["object"]);
nesting("create_order", "items", { sku: "A1", qty: 1 }, ["array"]);
extraKey("create_order", "shipping.zip", "12345");
missing("create_order", "items[1].sku", ["string"]);
syntax("create_order", "cut short", cutShort);

wrongType("set_timer", "seconds", "180", INT);
wrongType("set_timer", "repeat", "yes", ["boolean"]);
missing("set_timer", "seconds", INT);
outOfRange("set_timer", "seconds", 100000, ["86400"]);
fractional("set_timer", "seconds", 1.25);
nullField("set_timer", "repeat", ["boolean"]);
bigInteger("set_timer", "seconds", "9007199254740993", ["86400", "integer"]);

enumTypo("http_request", "method", "get", ["GET"]);
enumTypo("http_request", "method", "FETCH", ["GET", "POST"]);
missing("http_request", "method", ["GET", "POST"]);
wrongType("http_request", "timeout_ms", "5s", INT);
outOfRange("http_request", "timeout_ms", 10, ["100"]);
nesting("http_request", "headers", "accept: x", ["object"]);
syntax("http_request", "trailing comma", trailingComma);
doubleEncoded("http_request");

missing("edit_file", "old_string", ["string"]);
renamed("edit_file", "newString", "new_string");
wrongType("edit_file", "replace_all", 1, ["boolean"]);
wrongType("edit_file", "file_path", 42, ["string"]);
nullField("edit_file", "replace_all", ["boolean"]);
syntax("edit_file", "cut short", cutShort);

wrongType("query_db", "params[1]", true, ["string", "number"]);
wrongType("query_db", "limit", "10", INT);
nesting("query_db", "params", "a", ["array"]);
outOfRange("query_db", "limit", 5000, ["1000"]);
syntax("query_db", "single quotes", singleQuotes);

enumTypo("send_message", "channel", "deploys", ["general", "random"]);
enumTypo("send_message", "priority", "urgent", ["low", "normal", "high"]);
missing("send_message", "channel", ["general", "random"]);
wrongType("send_message", "text", 42, ["string"]);
add("send_message", "too short", "text", edited("send_message", (a) => a.text = ""), ["1"], ['""']);

wrongType("resize_image", "width", "640px", INT);
fractional("resize_image", "height", 480.5);
outOfRange("resize_image", "width", 10000, ["8192"]);
enumTypo("resize_image", "format", "jpg", ["jpeg"]);
missing("resize_image", "height", INT);
nullField("resize_image", "format", ["png", "jpeg"]);

add(
  "schedule_job",
  "union branch",
  "job.expr",
  edited("schedule_job", (a) => {
    a.job = { kind: "cron", expr: 5 };
  }),
  ["string"],
  ["5"],
);
add(
  "schedule_job",
  "union branch",
  "job.every_s",
  edited("schedule_job", (a) => {
    a.job = { kind: "interval", every_s: "60" };
  }),
  INT,
  ['"60"'],
);
add(
  "schedule_job",
  "union no branch",
  "job",
  edited("schedule_job", (a) => {
    a.job = { kind: "daily", at: "03:00" };
  }),
  ["cron", "interval"],
  ["daily", "object"],
);
missing("schedule_job", "job", ["cron", "interval", "object"]);
bigInteger("schedule_job", "ticket", "12345678901234567890", ["string"]);
bigInteger("schedule_job", "id", "90071992547409931", ["integer", "9007199254740991"]);
doubleEncoded("schedule_job");

/** The mistakes (at least 60). */
export const MISTAKES: readonly Mistake[] = out;
