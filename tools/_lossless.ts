/**
 * Private lossless-JSON checks for argument validation (docs/contracts.md §2 "Lossless JSON").
 *
 * Accepted: null, booleans, strings, finite numbers other than -0, dense arrays whose prototype
 * is an `Array.prototype` (any realm), and plain or null-prototype objects (any realm).
 * Cycles are rejected; shared non-cyclic references are allowed. Not checked, because JSON
 * ignores them and checking costs more than the validation itself: symbol keys, extra
 * non-index properties on arrays and non-enumerable keys (the registry's snapshot rejects them).
 *
 * @module
 */
import { JsonSnapshotError, snapshotJson } from "../core/json.ts";
import { errorMessage } from "../core/error_message.ts";
import { childPath, indexPath, quotePath, Violations } from "./_path.ts";

/** The fast check recurses at most this deep before handing over to the iterative walk. */
const MAX_FAST_DEPTH = 200;

/** Result of the fast check: `true` (lossless), `false` (not lossless) or `"deep"` (unknown). */
export type FastResult = boolean | "deep";

/** True for a plain or null-prototype object from any realm. */
export function isPlainObject(value: object): boolean {
  if (Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** True for an array whose prototype is some realm's `Array.prototype`. */
export function isPlainArray(value: unknown): value is readonly unknown[] {
  return Array.isArray(value) && Array.isArray(Object.getPrototypeOf(value));
}

/**
 * Recursive fast check without cycle tracking; answers `"deep"` past {@linkcode MAX_FAST_DEPTH}
 * (which every cycle reaches), so the caller then runs {@linkcode collectLossless}.
 */
export function fastLossless(value: unknown, depth = 0): FastResult {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && (value !== 0 || 1 / value > 0);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_FAST_DEPTH) return "deep";
  if (Array.isArray(value)) {
    if (!Array.isArray(Object.getPrototypeOf(value))) return false;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== "string") {
        const result = fastLossless(item, depth + 1);
        if (result !== true) return result;
      }
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && Object.getPrototypeOf(proto) !== null) {
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    if (typeof item !== "string") {
      const result = fastLossless(item, depth + 1);
      if (result !== true) return result;
    }
  }
  return true;
}

/** Reads one child (a getter runs once) into the walk; a getter that throws is its violation. */
function pushChild(
  children: Step[],
  source: object,
  key: string | number,
  path: string,
  out: Violations,
): void {
  let value: unknown;
  try {
    value = (source as Record<string | number, unknown>)[key];
  } catch (error) {
    out.add(
      `${quotePath(path)} could not be read (its getter threw: ${
        errorMessage(error).slice(0, 200)
      })`,
    );
    return;
  }
  children.push({ value, path, exit: false });
}

/** A pending walk step: a value to check, or the exit marker of a container. */
interface Step {
  readonly value: unknown;
  readonly path: string;
  readonly exit: boolean;
}

/**
 * Iterative lossless walk (no stack limit) that adds one violation per offending value.
 *
 * @param value The value to check.
 * @param path Its path (`""` for the root).
 * @param out Where violations go; the walk stops once it is full.
 * @param outer Enclosing containers already being walked (cycles back to them are reported).
 */
export function collectLossless(
  value: unknown,
  path: string,
  out: Violations,
  outer: readonly object[] = [],
): void {
  const ancestors = new Set<object>();
  const stack: Step[] = [{ value, path, exit: false }];
  while (stack.length > 0 && !out.full) {
    const step = stack.pop()!;
    const current = step.value;
    if (step.exit) {
      ancestors.delete(current as object);
      continue;
    }
    const message = scalarViolation(current);
    if (message !== undefined) {
      out.add(`${quotePath(step.path)} ${message}`);
      continue;
    }
    if (typeof current !== "object" || current === null) continue;
    if (ancestors.has(current) || outer.includes(current)) {
      out.add(`${quotePath(step.path)} must not contain a cycle (it refers to an enclosing value)`);
      continue;
    }
    const children: Step[] = [];
    if (Array.isArray(current)) {
      if (!isPlainArray(current)) {
        out.add(`${quotePath(step.path)} ${losslessDetail(current)}`);
        continue;
      }
      let dense = true;
      for (let i = 0; i < current.length; i++) {
        if (!(i in current)) dense = false;
        else pushChild(children, current, i, indexPath(step.path, i), out);
      }
      if (!dense) out.add(`${quotePath(step.path)} ${SPARSE}`);
    } else {
      if (!isPlainObject(current)) {
        out.add(`${quotePath(step.path)} ${losslessDetail(current)}`);
        continue;
      }
      const record = current as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        pushChild(children, record, key, childPath(step.path, key), out);
      }
    }
    ancestors.add(current);
    stack.push({ value: current, path: step.path, exit: true });
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

/** The violation of a sparse array. */
export const SPARSE = "is not a dense JSON array (it has holes)";

/**
 * Why `value` itself is not lossless JSON, naming its kind: `is not a finite JSON number (NaN)`,
 * `is not JSON (undefined)`, `is not a plain JSON object or array (a Map)`. The phrase comes from
 * `snapshotJson`, which fails on such a value before walking into it.
 */
export function losslessDetail(value: unknown): string {
  try {
    snapshotJson(value);
  } catch (error) {
    if (error instanceof JsonSnapshotError) return error.detail;
  }
  return "is not lossless JSON";
}

/** The violation text for a non-container value that is not lossless JSON, if any. */
export function scalarViolation(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "object":
      return undefined;
    case "number":
      if (Number.isFinite(value) && (value !== 0 || 1 / value > 0)) return undefined;
  }
  return losslessDetail(value);
}

/**
 * What to report when reading `value` threw (a getter or a proxy trap): the path of each
 * getter that throws, found by the lossless walk, else the thrown message.
 */
export function unreadable(value: unknown, error: unknown): readonly string[] {
  const probe = new Violations();
  try {
    collectLossless(value, "", probe);
  } catch {
    // A proxy trap: only the message is known.
  }
  const found = probe.list.filter((message) => message.includes(" could not be read (its getter"));
  return found.length > 0
    ? found
    : [`arguments could not be read: ${errorMessage(error).slice(0, 200)}`];
}
