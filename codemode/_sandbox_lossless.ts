/**
 * Private: the lossless-JSON check of tool call arguments inside the Code Mode sandbox. Shipped
 * as source by `_sandbox_main.ts` (see there): these functions reference only each other and
 * globals.
 *
 * @module
 */

/** Why an array is not lossless JSON, or `undefined`. */
export function losslessArrayProblem(v: unknown[], path: string): string | undefined {
  if (Object.getPrototypeOf(v) !== Array.prototype) return `${path} is an array subclass`;
  if (Object.keys(v).length !== v.length || Object.getOwnPropertySymbols(v).length > 0) {
    return `${path} is a sparse array or has extra properties`;
  }
  return undefined;
}

/** Why an object is not a plain lossless JSON object, or `undefined`. */
export function losslessObjectProblem(v: object, path: string): string | undefined {
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    return `${path} is a ${proto?.constructor?.name ?? "non-plain"} object, not a plain object`;
  }
  if (Object.getOwnPropertySymbols(v).length > 0) return `${path} has symbol keys`;
  for (const key of Object.getOwnPropertyNames(v)) {
    if (!Object.getOwnPropertyDescriptor(v, key)!.enumerable) {
      return `${path}.${key} is not enumerable`;
    }
  }
  return undefined;
}

/** Why a leaf value is not lossless JSON, `undefined` when it is, `null` for an object. */
export function losslessLeafProblem(v: unknown, path: string): string | undefined | null {
  if (v === null || typeof v === "string" || typeof v === "boolean") return undefined;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return `${path} is ${v}, not a finite number`;
    if (Object.is(v, -0)) return `${path} is -0`;
    return undefined;
  }
  if (typeof v !== "object") {
    return `${path} is ${typeof v === "undefined" ? "undefined" : `a ${typeof v}`}`;
  }
  return null;
}

/** Returns why `value` is not lossless JSON, or `undefined` when it is. Iterative, cycle-aware. */
export function losslessProblem(value: unknown): string | undefined {
  const stack: { value: unknown; path: string; exit?: object }[] = [{ value, path: "args" }];
  const ancestors = new Set<object>();
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.exit) {
      ancestors.delete(item.exit);
      continue;
    }
    const { value: v, path } = item;
    const leaf = losslessLeafProblem(v, path);
    if (leaf !== null) {
      if (leaf !== undefined) return leaf;
      continue;
    }
    const object = v as object;
    if (ancestors.has(object)) return `${path} is a circular reference`;
    const problem = Array.isArray(object)
      ? losslessArrayProblem(object, path)
      : losslessObjectProblem(object, path);
    if (problem !== undefined) return problem;
    ancestors.add(object);
    stack.push({ value: undefined, path, exit: object });
    if (Array.isArray(object)) {
      for (let i = object.length - 1; i >= 0; i--) {
        stack.push({ value: object[i], path: `${path}[${i}]` });
      }
    } else {
      for (const key of Object.getOwnPropertyNames(object)) {
        stack.push({ value: (object as Record<string, unknown>)[key], path: `${path}.${key}` });
      }
    }
  }
  return undefined;
}
