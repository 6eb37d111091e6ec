/**
 * Lossless JSON: the one rule set for tool arguments, results, meta and session events.
 *
 * @module
 */
import { errorMessage } from "./error_message.ts";
import { isForeignIntrinsic } from "./_json_realm.ts";
import { isMarkedSnapshot, markSnapshot } from "./_snapshot_mark.ts";

/** A JSON primitive. */
export type JsonPrimitive = string | number | boolean | null;

/** A JSON object. */
export interface JsonObject {
  /** A member value. */
  readonly [key: string]: JsonValue;
}

/** A JSON array. */
export type JsonArray = readonly JsonValue[];

/**
 * Any lossless JSON value.
 *
 * @example Usage
 * ```ts
 * import type { JsonValue } from "./json.ts";
 * const value: JsonValue = { a: [1, "b", null] };
 * ```
 */
export type JsonValue = JsonPrimitive | JsonObject | JsonArray;

/** The intrinsic `Array.prototype` of this realm. */
const ARRAY_PROTO: object = Array.prototype;
/** The intrinsic `Object.prototype` of this realm. */
const OBJECT_PROTO: object = Object.prototype;
const IDENTIFIER_REGEXP = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** One container being copied: its source, its frozen-to-be copy and the walk position. */
interface Frame {
  readonly source: object;
  readonly target: Record<string, JsonValue> | JsonValue[];
  /** Own enumerable string keys for objects; `null` for arrays. */
  readonly keys: readonly string[] | null;
  readonly length: number;
  index: number;
}

/**
 * Copies `value` as detached, deep-frozen lossless JSON in one iterative pass (no recursion, so
 * any depth works).
 *
 * Accepted: `null`, booleans, strings, finite numbers other than `-0`, dense arrays with the
 * intrinsic `Array.prototype` and no extra own properties, and plain or null-prototype objects
 * (from any realm) with only own enumerable string keys. Rejected: `undefined`, functions,
 * symbols, BigInt, `NaN`/`±Infinity`, `-0`, sparse arrays, arrays with extra properties, symbol
 * or non-enumerable keys, class instances, `Map`/`Set`/`Date` and other exotic objects, and
 * cycles (shared non-cyclic references are copied). `toJSON` is ignored; getters are read exactly
 * once, and one that throws fails at its path. An own `__proto__` key is kept as a data property.
 *
 * @param value The value to copy.
 * @returns A deep-frozen copy (primitives are returned as they are).
 * @throws {JsonSnapshotError} (a `TypeError`) When `value` is not lossless JSON; the message names the path and the
 * reason, for example `Cannot snapshot "a.b[2]" as lossless JSON: NaN is not a finite number`.
 *
 * @example Usage
 * ```ts
 * import { snapshotJson } from "./json.ts";
 * import { deepEqual, equal, throws } from "node:assert/strict";
 * const source = { a: [1, "x", null] };
 * const copy = snapshotJson(source);
 * deepEqual(copy, source);
 * equal(Object.isFrozen(copy), true);
 * throws(() => snapshotJson({ a: { b: [0, 1, NaN] } }), {
 *   name: "TypeError",
 *   message: 'Cannot snapshot "a.b[2]" as lossless JSON: NaN is not a finite number',
 * });
 * ```
 */
export function snapshotJson(value: unknown): JsonValue {
  if (typeof value !== "object" || value === null) return primitive(value, []);
  const stack: Frame[] = [];
  const walk: Walk = { stack, ancestors: undefined };
  const root = enter(value, walk);
  markSnapshot(root as object); // Before the root is frozen (its frame completes last).
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index === frame.length) {
      Object.freeze(frame.target);
      walk.ancestors?.delete(frame.source);
      stack.pop();
      continue;
    }
    const index = frame.index++;
    const keys = frame.keys;
    if (keys === null) {
      const child = read(frame.source, index, stack);
      if (child === undefined && !Object.hasOwn(frame.source, index)) {
        fail(
          stack,
          "the array is sparse (it has a hole here)",
          "is not JSON (a hole in an array)",
          child,
        );
      }
      (frame.target as JsonValue[]).push(
        typeof child === "object" && child !== null ? enter(child, walk) : primitive(child, stack),
      );
    } else {
      const key = keys[index]!;
      const child = read(frame.source, key, stack);
      const copy = typeof child === "object" && child !== null
        ? enter(child, walk)
        : primitive(child, stack);
      if (key === "__proto__") {
        Object.defineProperty(frame.target, key, {
          value: copy,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        (frame.target as Record<string, JsonValue>)[key] = copy;
      }
    }
  }
  return root;
}

/**
 * Tells whether `value` is the root of a {@linkcode snapshotJson} result: detached, frozen,
 * lossless JSON that needs no second check.
 *
 * @param value The value to test.
 * @returns `true` only for objects and arrays that `snapshotJson` returned.
 *
 * @example Usage
 * ```ts
 * import { isJsonSnapshot, snapshotJson } from "./json.ts";
 * import { equal } from "node:assert/strict";
 * equal(isJsonSnapshot(snapshotJson({ a: 1 })), true);
 * equal(isJsonSnapshot({ a: 1 }), false);
 * ```
 */
export function isJsonSnapshot(value: unknown): value is JsonValue {
  return typeof value === "object" && value !== null && isMarkedSnapshot(value);
}

/**
 * Tells whether `value` is lossless JSON (the rules of {@linkcode snapshotJson}).
 *
 * @param value The value to check.
 * @returns `true` when {@linkcode snapshotJson} would accept it.
 *
 * @example Usage
 * ```ts
 * import { isLosslessJson } from "./json.ts";
 * import { equal } from "node:assert/strict";
 * equal(isLosslessJson({ a: [1, null] }), true);
 * equal(isLosslessJson({ a: -0 }), false);
 * ```
 */
export function isLosslessJson(value: unknown): value is JsonValue {
  try {
    snapshotJson(value);
    return true;
  } catch {
    return false;
  }
}

function primitive(value: unknown, stack: readonly Frame[]): JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) {
        fail(
          stack,
          `${value} is not a finite number`,
          `is not a finite JSON number (${value})`,
          value,
        );
      }
      if (value === 0 && 1 / value < 0) {
        fail(stack, "-0 is not representable in JSON", "is not a JSON number (-0; send 0)", value);
      }
      return value;
    case "object":
      if (value === null) return null;
      break;
    case "undefined":
      fail(stack, "undefined is not JSON", "is not JSON (undefined)", value);
      break;
    case "bigint":
      fail(stack, "a BigInt is not JSON", "is not JSON (a BigInt)", value);
      break;
    case "symbol":
      fail(stack, "a symbol is not JSON", "is not JSON (a symbol)", value);
      break;
    case "function":
      fail(stack, "a function is not JSON", "is not JSON (a function)", value);
  }
  return fail(stack, `${typeof value} is not JSON`, `is not JSON (${typeof value})`, value);
}

/** Reads one property (a getter runs once); a throw fails at its path, the thrown value as `value`. */
function read(source: object, key: string | number, stack: readonly Frame[]): unknown {
  try {
    return (source as Record<string | number, unknown>)[key];
  } catch (error) {
    const why = `its getter threw: ${errorMessage(error).slice(0, 200)}`;
    return fail(stack, why, `could not be read (${why})`, error);
  }
}

/** Below this depth the cycle check scans the stack; deeper walks switch to a set. */
const SHALLOW_DEPTH = 32;

interface Walk {
  readonly stack: Frame[];
  ancestors: Set<object> | undefined;
}

function enter(value: object, walk: Walk): JsonValue {
  const stack = walk.stack;
  let ancestors = walk.ancestors;
  if (ancestors === undefined && stack.length >= SHALLOW_DEPTH) {
    ancestors = walk.ancestors = new Set(stack.map((frame) => frame.source));
  }
  if (ancestors === undefined) {
    for (let i = 0; i < stack.length; i++) {
      if (stack[i]!.source === value) fail(stack, CIRCULAR, CIRCULAR_DETAIL, value);
    }
  } else if (ancestors.has(value)) {
    fail(stack, CIRCULAR, CIRCULAR_DETAIL, value);
  }
  const proto = Object.getPrototypeOf(value);
  let frame: Frame;
  if (Array.isArray(value)) {
    if (proto !== ARRAY_PROTO && !isForeignIntrinsic(proto, true)) {
      fail(
        stack,
        "an array subclass is not a plain array",
        "is not a plain JSON array (an array subclass)",
        value,
      );
    }
    const length = value.length;
    const ownKeys = Reflect.ownKeys(value).length;
    if (ownKeys > length + 1) {
      fail(
        stack,
        "the array has extra own properties",
        "is not a plain JSON array (it has extra own properties)",
        value,
      );
    }
    if (ownKeys < length + 1) {
      fail(
        stack,
        "the array is sparse (it has holes)",
        "is not a dense JSON array (it has holes)",
        value,
      );
    }
    frame = { source: value, target: [], keys: null, length, index: 0 };
  } else {
    if (proto !== OBJECT_PROTO && proto !== null && !isForeignIntrinsic(proto, false)) {
      const kind = describeObject(value);
      fail(
        stack,
        `${kind} is not a plain object or array`,
        `is not a plain JSON object or array (${kind})`,
        value,
      );
    }
    const keys = Object.keys(value);
    // Cheaper than one Reflect.ownKeys(): names and symbols are cached by V8 separately.
    if (
      Object.getOwnPropertyNames(value).length !== keys.length ||
      Object.getOwnPropertySymbols(value).length !== 0
    ) {
      const odd = Reflect.ownKeys(value).find((key) =>
        typeof key === "symbol" || !Object.prototype.propertyIsEnumerable.call(value, key)
      )!;
      const reason = typeof odd === "symbol"
        ? `the object has a symbol key ${String(odd)}`
        : `the object has a non-enumerable key "${odd}"`;
      fail(stack, reason, `is not a plain JSON object (${reason.slice(15)})`, value);
    }
    frame = { source: value, target: {}, keys, length: keys.length, index: 0 };
  }
  ancestors?.add(value);
  stack.push(frame);
  return frame.target;
}

function describeObject(value: object): string {
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  if (tag !== "Object") return `a ${tag}`;
  let name: unknown;
  try {
    name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  } catch {
    name = undefined;
  }
  return typeof name === "string" && name !== ""
    ? `an instance of class ${name}`
    : "an exotic object";
}

const CIRCULAR = "the value is circular (it contains itself)";
const CIRCULAR_DETAIL = "is not JSON (a circular reference to an enclosing value)";

function fail(stack: readonly Frame[], reason: string, detail: string, value: unknown): never {
  let path = "";
  for (const frame of stack) {
    const at = frame.index - 1;
    if (frame.keys === null) {
      path += `[${at}]`;
    } else {
      const key = frame.keys[at]!;
      path += IDENTIFIER_REGEXP.test(key)
        ? (path === "" ? key : `.${key}`)
        : `[${JSON.stringify(key)}]`;
    }
  }
  throw new JsonSnapshotError(path, reason, { detail, value });
}

/** Options of {@linkcode JsonSnapshotError}. */
export interface JsonSnapshotErrorOptions {
  /** What is wrong, after the path: `is not a finite JSON number (NaN)`. @default {"is not lossless JSON"} */
  readonly detail?: string;
  /** The offending value. */
  readonly value?: unknown;
}

/**
 * The `TypeError` {@linkcode snapshotJson} throws, with the failing path, the reason and the
 * offending value as fields so callers can reword the message without parsing it. Its `name`
 * stays `TypeError`. {@linkcode JsonSnapshotError.describe} names the path and the value's kind,
 * for example `"limit" is not a finite JSON number (NaN)`.
 *
 * @example Usage
 * ```ts
 * import { JsonSnapshotError, snapshotJson } from "./json.ts";
 * import { equal, ok } from "node:assert/strict";
 * try {
 *   snapshotJson({ a: [NaN] });
 * } catch (error) {
 *   ok(error instanceof JsonSnapshotError);
 *   equal(error.path, "a[0]");
 *   equal(error.reason, "NaN is not a finite number");
 *   equal(error.describe(), '"a[0]" is not a finite JSON number (NaN)');
 * }
 * ```
 */
export class JsonSnapshotError extends TypeError {
  /** Where the value failed (`a.b[2]`); empty for the root value. */
  readonly path: string;
  /** Why it failed, for example `NaN is not a finite number`. */
  readonly reason: string;
  /** What is wrong, after the path: `is not a finite JSON number (NaN)`. */
  readonly detail: string;
  /** The offending value. */
  readonly value: unknown;

  /**
   * Creates the error.
   *
   * @param path The failing path (empty for the root).
   * @param reason Why it failed.
   * @param options The detail and the offending value.
   */
  constructor(path: string, reason: string, options: JsonSnapshotErrorOptions = {}) {
    super(`Cannot snapshot ${path === "" ? "the value" : `"${path}"`} as lossless JSON: ${reason}`);
    this.path = path;
    this.reason = reason;
    this.detail = options.detail ?? "is not lossless JSON";
    this.value = options.value;
  }

  /**
   * The problem in one phrase that names the path and the value's kind.
   *
   * @param root What to call the root value. @default {"the value"}
   * @returns For example `"limit" is not a finite JSON number (NaN)`.
   */
  describe(root = "the value"): string {
    return `${this.path === "" ? root : JSON.stringify(this.path)} ${this.detail}`;
  }
}
