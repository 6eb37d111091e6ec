/**
 * Runtime argument validation: ajv compiled once per tool, violations a model can act on.
 *
 * @module
 */
import { Ajv } from "ajv";
import type { JsonSchema } from "./definition.ts";
import { toJsonSchema } from "./json_schema.ts";
import { checkParameters, type ParametersSpec } from "./schema.ts";
import {
  collectLossless,
  fastLossless,
  isPlainArray,
  isPlainObject,
  losslessDetail,
  scalarViolation,
  SPARSE,
  unreadable,
} from "./_lossless.ts";
import { isJsonSnapshot } from "../core/json.ts";
import { childPath, indexPath, quotePath, sortByPath, Violations } from "./_path.ts";
import { describeExpected, describeReceived, kindOf } from "./_arg_describe.ts";
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
import { formatViolation } from "./arg_error.ts";

const CYCLE = "must not contain a cycle (it refers to an enclosing value)";

/**
 * A compiled validator: returns the violations of one arguments value sorted by path, or an
 * empty (frozen) list when the value is valid.
 */
export interface ArgsValidator {
  /**
   * Validates arguments. Never throws, whatever the input.
   *
   * @param args The arguments value.
   * @returns The violations; empty when valid.
   */
  (args: unknown): readonly string[];
  /** The model-facing JSON Schema the validator was compiled from. */
  readonly schema: JsonSchema;
}

const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  strictNumbers: true,
  validateFormats: false,
  logger: false,
} as const;
const AJV = new Ajv(AJV_OPTIONS);
// Own-property checks cost ajv about 5x, so only specs naming an Object.prototype member
// (`constructor`, `toString`, `__proto__`, …) use them.
const AJV_OWN = new Ajv({ ...AJV_OPTIONS, ownProperties: true });

const VALID: readonly string[] = Object.freeze([]);

/**
 * Compiles a validator for a parameters map (once per tool; `defineTool` does this for you).
 *
 * A valid value costs one ajv call plus one lossless-JSON pass; messages are built only on
 * failure. An invalid one is walked along the spec; each violation names the path, what was
 * expected (type, allowed values, a union's shapes), what was received (kind and a short, safe
 * rendering) and a fix, sorted by path, at most 32 of them:
 * `"limit": expected integer, received string "5"; fix: send 5`,
 * `"shipping.method": expected one of "ground", "air" (required), received nothing (the key is
 * missing); fix: send "ground"`, `"since": expected string (optional), received null; fix: omit
 * the key …`, `"fle": expected no key "fle" (declared: "file"), received …; fix: rename "fle" to
 * "file"`, `arguments: expected object, received string (arguments arrived as a JSON string
 * holding an object); fix: send the object itself, not a JSON string`. A union the value does not
 * match names each branch and why it failed, unless the value picks a branch by its `const`
 * key (then that branch's own violations are reported). Values that are not lossless JSON name
 * their kind: `"x" is not a finite JSON number (NaN)`, `"x" is not JSON (undefined)`. Paths are
 * dotted with `[i]` indices; the root prints as `arguments`. Hostile values (deep nesting,
 * cycles, getters that throw, `__proto__` keys) give violations, never a throw.
 *
 * @param parameters The parameters map.
 * @returns The validator.
 * @throws {SchemaSpecError} When the map has an author mistake.
 *
 * @example Usage
 * ```ts
 * import { compileValidator } from "./validate.ts";
 * import { deepEqual } from "node:assert/strict";
 * const validate = compileValidator({
 *   path: { type: "string", required: true },
 *   limit: { type: "number" },
 * });
 * deepEqual(validate({ path: "/tmp/a" }), []);
 * deepEqual(validate({ path: "/tmp/a", limit: "10" }), [
 *   '"limit": expected number, received string "10"; fix: send 10',
 * ]);
 * ```
 */
export function compileValidator(parameters: ParametersSpec): ArgsValidator {
  const spec = checkParameters(parameters);
  const schema = toJsonSchema(spec);
  const ajv = namesPrototypeMember(spec) ? AJV_OWN : AJV;
  const ajvValidate = ajv.compile(schema);
  // The compiled function stays valid; dropping the cache entry keeps hot-swapped tools collectable.
  ajv.removeSchema(schema);
  const root: Node = { type: "object", properties: spec, additionalProperties: true };
  function validateArgs(args: unknown): readonly string[] {
    let ajvValid = false;
    try {
      // The registry hands over snapshotJson roots: lossless by construction, so skip the pass.
      const lossless = isJsonSnapshot(args) || fastLossless(args);
      if (lossless !== false) ajvValid = ajvValidate(args);
      if (lossless === true && ajvValid) return VALID;
    } catch {
      // A throwing getter or proxy: the walk below reports it.
    }
    const out = new Violations();
    try {
      walk(root, args, "", out, []);
    } catch (error) {
      for (const message of unreadable(args, error)) out.add(message);
    }
    if (out.list.length === 0) {
      // Deeper than the fast check goes, and the walk found it lossless.
      if (ajvValid) return VALID;
      // ajv and the walk disagree; report ajv's view rather than accept the value.
      for (const e of ajvValidate.errors ?? []) {
        out.add(formatViolation(
          pointerPath(e.instancePath),
          `a value that passes ajv (${e.message ?? "rejected"})`,
          "a value ajv rejected",
          "send a value that matches the schema",
        ));
      }
      if (out.list.length === 0) out.add("arguments must be lossless JSON");
    }
    return Object.freeze(sortByPath(out.list));
  }
  return Object.assign(validateArgs, { schema });
}

type Node = Readonly<Record<string, unknown>>;

function namesPrototypeMember(properties: Readonly<Record<string, unknown>>): boolean {
  for (const name of Object.keys(properties)) {
    if (name in Object.prototype) return true;
    const spec = properties[name] as Node;
    const nested = [spec, ...((spec.oneOf ?? []) as Node[])];
    for (const node of nested) {
      if (node.properties !== undefined && namesPrototypeMember(node.properties as Node)) {
        return true;
      }
      if (node.items !== undefined && namesPrototypeMember({ items: node.items })) return true;
    }
  }
  return false;
}

function walk(
  node: Node,
  value: unknown,
  path: string,
  out: Violations,
  ancestors: object[],
  optional = false,
): void {
  if (out.full) return;
  if (node.oneOf !== undefined) return walkOneOf(node, value, path, out, ancestors);
  switch (node.type) {
    case "json":
      return collectLossless(value, path, out, ancestors);
    case "array":
      return walkArray(node, value, path, out, ancestors);
    case "object":
      return walkObject(node, value, path, out, ancestors);
  }
  const type = node.type as string;
  if (!scalarMatches(type, value)) {
    const lossless = typeof value === "number" && type !== "string" && type !== "boolean" &&
      type !== "null" && scalarViolation(value);
    if (lossless) return out.add(`${quotePath(path)} ${lossless}`);
    return out.add(mismatch(node, value, path, optional));
  }
  if (
    "const" in node ? value !== node.const : node.enum !== undefined &&
      !(node.enum as readonly unknown[]).includes(value)
  ) {
    out.add(mismatch(node, value, path, optional));
  }
}

/** The violation of a value that does not match its node. */
function mismatch(node: Node, value: unknown, path: string, optional: boolean): string {
  if (value === null && optional) {
    return formatViolation(path, `${describeExpected(node, node)} (optional)`, "null", OMIT_NULL);
  }
  if (path === "" && typeof value === "string" && holdsJsonObject(value)) {
    return formatViolation(path, "object", "string", SEND_OBJECT, DOUBLE_ENCODED);
  }
  return formatViolation(
    path,
    describeExpected(node, node),
    describeReceived(value),
    fixFor(node, value, true, node),
  );
}

function walkOneOf(
  node: Node,
  value: unknown,
  path: string,
  out: Violations,
  ancestors: object[],
): void {
  const branches = node.oneOf as readonly Node[];
  const probes = branches.map((branch) => {
    const probe = new Violations();
    walk(branch, value, path, probe, ancestors);
    return probe.list;
  });
  const matched = probes.filter((list) => list.length === 0).length;
  if (matched === 1) return;
  if (matched === 0) {
    // A branch the value picks by its discriminator (or the only one of its kind) says why.
    const picked = pickBranch(branches, value);
    if (picked !== undefined) {
      for (const violation of probes[picked]!) out.add(violation);
      return;
    }
  }
  const reasons = probes.map((list, i) =>
    `branch ${i + 1}: ${list.length === 0 ? "matches" : brief(list[0]!, path)}`
  );
  const best = probes.reduce((b, list, i) => (list.length < probes[b]!.length ? i : b), 0);
  out.add(formatViolation(
    path,
    matched === 0 ? describeExpected(node, node) : `exactly one of ${branches.length} shapes`,
    matched === 0
      ? describeReceived(value)
      : `${describeReceived(value)}, which matches ${matched}`,
    fixFor(branches[best], value, true, node),
    reasons.join(", "),
  ));
}

/** The branch a value picks: one whose `const` property it carries, or the only one of its kind. */
function pickBranch(branches: readonly Node[], value: unknown): number | undefined {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const index = branches.findIndex((branch) => {
      const properties = (branch.properties ?? {}) as Readonly<Record<string, Node>>;
      return Object.keys(properties).some((key) =>
        "const" in properties[key]! && Object.hasOwn(record, key) &&
        record[key] === properties[key]!.const
      );
    });
    if (index >= 0) return index;
  }
  const kind = kindOf(value);
  const sameKind = branches.flatMap((branch, i) =>
    branch.type === kind || (kind === "integer" && branch.type === "number") ? [i] : []
  );
  return sameKind.length === 1 ? sameKind[0] : undefined;
}

/** A violation shortened for a union summary: its path relative to the union, and what was expected. */
function brief(violation: string, path: string): string {
  let text = violation.replace(/; fix: .*$/s, "").replace(/ \(declared: [^)]*\)/, "");
  const prefix = quotePath(path).slice(0, path === "" ? 0 : -1);
  if (path === "" && text.startsWith("arguments: ")) text = text.slice(11);
  else if (path !== "" && text.startsWith(prefix)) {
    const rest = text.slice(prefix.length);
    // The union's own path says nothing new: keep what follows; a deeper path stays relative.
    text = rest.startsWith('": ') ? rest.slice(3) : `"${rest.replace(/^[.]/, "")}`;
  }
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function walkArray(
  node: Node,
  value: unknown,
  path: string,
  out: Violations,
  ancestors: object[],
): void {
  if (!Array.isArray(value)) return out.add(mismatch(node, value, path, false));
  if (!isPlainArray(value)) return out.add(`${quotePath(path)} ${losslessDetail(value)}`);
  if (ancestors.includes(value)) return out.add(`${quotePath(path)} ${CYCLE}`);
  ancestors.push(value);
  const items = node.items as Node | undefined;
  let dense = true;
  for (let i = 0; i < value.length && !out.full; i++) {
    if (!(i in value)) {
      if (dense) out.add(`${quotePath(path)} ${SPARSE}`);
      dense = false;
    } else if (items === undefined) {
      collectLossless(value[i], indexPath(path, i), out, ancestors);
    } else walk(items, value[i], indexPath(path, i), out, ancestors);
  }
  ancestors.pop();
}

function walkObject(
  node: Node,
  value: unknown,
  path: string,
  out: Violations,
  ancestors: object[],
): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return out.add(mismatch(node, value, path, false));
  }
  if (!isPlainObject(value)) return out.add(`${quotePath(path)} ${losslessDetail(value)}`);
  if (ancestors.includes(value)) return out.add(`${quotePath(path)} ${CYCLE}`);
  ancestors.push(value);
  const record = value as Readonly<Record<string, unknown>>;
  const properties = (node.properties ?? {}) as Readonly<Record<string, Node>>;
  const open = node.additionalProperties === true;
  const renames = undeclaredRenames(properties, record);
  const sources = new Map([...renames].map(([from, to]) => [to, from]));
  for (const name of Object.keys(properties)) {
    if (out.full) break;
    const property = properties[name]!;
    const at = childPath(path, name);
    if (Object.hasOwn(record, name)) {
      walk(property, record[name], at, out, ancestors, property.required !== true);
    } else if (property.required === true && (open || !sources.has(name))) {
      const from = sources.get(name);
      out.add(formatViolation(
        at,
        `${describeExpected(property, property)} (required)`,
        describeReceived(undefined, false),
        from === undefined ? fixFor(property, undefined, false, property) : renameFix(from, name),
      ));
    }
  }
  for (const key of Object.keys(record)) {
    if (out.full) break;
    if (Object.hasOwn(properties, key)) continue;
    if (open) collectLossless(record[key], childPath(path, key), out, ancestors);
    else out.add(undeclared(path, key, record[key], properties, renames.get(key)));
  }
  ancestors.pop();
}

function scalarMatches(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    default:
      return Number.isInteger(value) && !Object.is(value, -0);
  }
}

function undeclared(
  path: string,
  key: string,
  value: unknown,
  properties: Readonly<Record<string, Node>>,
  target: string | undefined,
): string {
  const { expected, fix } = undeclaredParts(key, properties, target);
  return formatViolation(childPath(path, key), expected, describeReceived(value), fix);
}

/** A JSON Pointer (`/a/0/b`) as a dotted path (`a[0].b`). */
function pointerPath(pointer: string): string {
  if (pointer === "") return "";
  return pointer.slice(1).split("/").reduce((path, raw) => {
    const s = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    return /^\d+$/.test(s) ? indexPath(path, Number(s)) : childPath(path, s);
  }, "");
}
