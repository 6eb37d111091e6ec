/**
 * Private: Standard Schema issues (zod 4, valibot, arktype, any library) as argument errors in
 * the DSL's shape. What is expected comes from the tool's JSON Schema at the issue's path when it
 * has that path (so a missing key names its type and allowed values), else from the issue; the
 * library's own message is kept as the detail; union branches say why each failed.
 *
 * @module
 */
import {
  describeExpected,
  describeReceived,
  isRequired,
  jsonText,
  nodeAt,
  resolveRef,
  type SchemaNode,
} from "./_arg_describe.ts";
import {
  DOUBLE_ENCODED,
  fixFor,
  holdsJsonObject,
  OMIT_NULL,
  renameFix,
  SEND_OBJECT,
  undeclaredParts,
  undeclaredRenames,
} from "./_arg_fix.ts";
import { childPath, indexPath, type Violations } from "./_path.ts";
import { formatViolation } from "./arg_error.ts";

/** One issue as the libraries report it (only `message` and `path` are standard). */
export interface LibraryIssue {
  readonly message?: unknown;
  readonly path?: readonly unknown[] | undefined;
  readonly code?: unknown;
  readonly keys?: unknown;
  readonly errors?: unknown;
  readonly expected?: unknown;
  readonly values?: unknown;
}

/** Where an issue points: the path, its segments, the value there and its parent. */
interface Located {
  readonly path: string;
  readonly segments: readonly (string | number)[];
  readonly value: unknown;
  readonly present: boolean;
  readonly parent: unknown;
}

/** Reads an issue path (keys or `{ key }` segments) against the validated value. */
export function locate(
  rawPath: readonly unknown[] | undefined,
  args: unknown,
  base?: Located,
): Located {
  let { path, value, present, parent } = base ??
    { path: "", value: args, present: true, parent: undefined };
  const segments: (string | number)[] = [...(base?.segments ?? [])];
  for (const raw of rawPath ?? []) {
    const key = typeof raw === "object" && raw !== null ? (raw as { key?: unknown }).key : raw;
    const segment = typeof key === "number" ? key : String(key);
    segments.push(segment);
    path = typeof segment === "number" ? indexPath(path, segment) : childPath(path, segment);
    parent = value;
    present = isRecord(parent) && Object.hasOwn(parent, segment);
    value = present ? (parent as Record<PropertyKey, unknown>)[segment] : undefined;
  }
  return { path, segments, value, present, parent };
}

function isRecord(value: unknown): value is Record<PropertyKey, unknown> {
  return typeof value === "object" && value !== null;
}

/** The library's message, without a leading copy of the path (arktype starts with it). */
function libraryMessage(issue: LibraryIssue, at: Located): string {
  let message = String(issue?.message ?? "is invalid").slice(0, 200);
  if (at.path !== "" && message.startsWith(`${at.path} `)) {
    message = message.slice(at.path.length + 1);
  }
  return message;
}

/** Adds the violations of one issue. */
export function addIssue(
  issue: LibraryIssue,
  args: unknown,
  context: { readonly schema: SchemaNode | undefined; readonly vendor: string },
  out: Violations,
  base?: Located,
): void {
  const at = locate(issue?.path, args, base);
  const { schema, vendor } = context;
  // A refinement's issue says what it wants itself; the schema node would only repeat the shape.
  const node = schema === undefined || issue?.code === "custom"
    ? undefined
    : nodeAt(schema, at.segments);
  if (issue?.code === "unrecognized_keys" && Array.isArray(issue.keys)) {
    return addUnrecognized(issue.keys.map(String), at, node, out);
  }
  if (issue?.code === "invalid_union" && Array.isArray(issue.errors) && issue.errors.length > 0) {
    return addUnion(issue, args, context, at, out);
  }
  const detail = `${vendor}: ${libraryMessage(issue, at)}`;
  const root = schema ?? {};
  if (at.path === "" && typeof at.value === "string" && holdsJsonObject(at.value)) {
    return out.add(formatViolation("", "object", "string", SEND_OBJECT, DOUBLE_ENCODED));
  }
  const expected = node === undefined ? issueExpected(issue) : describeExpected(node, root);
  const parentNode = schema === undefined ? undefined : nodeAt(schema, at.segments.slice(0, -1));
  const key = at.segments[at.segments.length - 1];
  const inObject = typeof key === "string" && isRecord(at.parent) && !Array.isArray(at.parent);
  const required = inObject && parentNode !== undefined && isRequired(parentNode, key);
  if (at.present && at.value === null && inObject && parentNode !== undefined && !required) {
    return out.add(formatViolation(at.path, `${expected} (optional)`, "null", OMIT_NULL, detail));
  }
  if (!at.present && inObject) {
    const renames = parentNode?.properties === undefined
      ? new Map<string, string>()
      : undeclaredRenames(parentNode.properties as SchemaNode, at.parent as SchemaNode);
    const from = [...renames].find(([, to]) => to === key)?.[0];
    const fix = from !== undefined
      ? renameFix(from, key)
      : node === undefined
      ? `send ${expected}`
      : fixFor(node, undefined, false, root);
    return out.add(
      formatViolation(
        at.path,
        `${expected} (required)`,
        describeReceived(undefined, false),
        fix,
        detail,
      ),
    );
  }
  const fix = node === undefined
    ? `send a value that passes: ${libraryMessage(issue, at)}`
    : fixFor(node, at.value, at.present, root);
  out.add(formatViolation(at.path, expected, describeReceived(at.value, at.present), fix, detail));
}

/** What an issue itself says is expected (zod `expected`/`values`, valibot and arktype `expected`). */
function issueExpected(issue: LibraryIssue): string {
  if (Array.isArray(issue?.values)) {
    return issue.values.length === 1
      ? jsonText(issue.values[0])
      : `one of ${issue.values.map((v) => jsonText(v)).join(", ")}`;
  }
  if (typeof issue?.expected === "string") return issue.expected.slice(0, 120);
  return String(issue?.message ?? "a valid value").slice(0, 120);
}

function addUnrecognized(
  keys: readonly string[],
  at: Located,
  node: SchemaNode | undefined,
  out: Violations,
): void {
  const properties = (node?.properties ?? {}) as SchemaNode;
  const record = isRecord(at.value) ? at.value as SchemaNode : {};
  const renames = undeclaredRenames(properties, record);
  for (const key of keys) {
    const { expected, fix } = undeclaredParts(key, properties, renames.get(key));
    const value = Object.hasOwn(record, key) ? record[key] : undefined;
    out.add(formatViolation(childPath(at.path, key), expected, describeReceived(value), fix));
  }
}

/**
 * A union issue: the branch the value picks (its issues touch no discriminator) reports its own
 * issues at their full paths; otherwise one line names every branch and why it failed.
 */
function addUnion(
  issue: LibraryIssue,
  args: unknown,
  context: { readonly schema: SchemaNode | undefined; readonly vendor: string },
  at: Located,
  out: Violations,
): void {
  const branches = (issue.errors as unknown[]).map((list) =>
    Array.isArray(list) ? list as LibraryIssue[] : []
  );
  const picked = branches.filter((list) => list.length > 0 && !list.some(isDiscriminatorMiss));
  if (picked.length === 1) {
    for (const inner of picked[0]!) addIssue(inner, args, context, out, at);
    return;
  }
  const reasons = branches.map((list, i) => {
    const first = list[0];
    const where = first?.path && first.path.length > 0
      ? `${locate(first.path, at.value).path}: `
      : "";
    const text = first === undefined ? "matches" : `${where}${String(first.message ?? "invalid")}`;
    return `branch ${i + 1}: ${text.length > 70 ? `${text.slice(0, 69)}…` : text}`;
  });
  const root = context.schema ?? {};
  const node = context.schema === undefined ? undefined : nodeAt(context.schema, at.segments);
  const expected = node === undefined ? "one of the union's shapes" : describeExpected(node, root);
  const fix = node === undefined
    ? "send a value matching one branch"
    : fixFor(resolveRef(node, root), at.value, at.present, root);
  out.add(
    formatViolation(
      at.path,
      expected,
      describeReceived(at.value, at.present),
      fix,
      `${context.vendor}: ${reasons.join(", ")}`,
    ),
  );
}

/** An issue on a branch's literal key (`kind: "a"` expected): the value did not pick that branch. */
function isDiscriminatorMiss(issue: LibraryIssue): boolean {
  return (issue?.code === "invalid_value" || issue?.code === "invalid_literal") &&
    Array.isArray(issue.path) && issue.path.length === 1;
}
