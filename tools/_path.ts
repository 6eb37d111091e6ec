/**
 * Private helpers for violation paths and the bounded violation list.
 *
 * @module
 */

/** Longest property name kept in a path segment; longer names are cut with `…`. */
const MAX_SEGMENT = 64;

/** Most violations reported for one value; the rest are summarized in one final line. */
export const MAX_VIOLATIONS = 32;

/** The line that replaces violations beyond {@linkcode MAX_VIOLATIONS}. */
export const MORE_VIOLATIONS = "more violations not shown";

/** Appends a property name to a dotted path. */
export function childPath(path: string, key: string): string {
  const segment = key.length > MAX_SEGMENT ? `${key.slice(0, MAX_SEGMENT)}…` : key;
  return path === "" ? segment : `${path}.${segment}`;
}

/** Appends an array index to a path. */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** Longest path printed whole; longer ones keep their first and last 100 characters. */
const MAX_PATH = 200;

/** Prints a path for a model: the root is `arguments`, anything else is JSON-quoted. */
export function quotePath(path: string): string {
  if (path === "") return "arguments";
  if (path.length > MAX_PATH) path = `${path.slice(0, 100)}…${path.slice(-100)}`;
  return JSON.stringify(path);
}

/** A bounded violation list: `add` returns false once the list is full. */
export class Violations {
  /** The collected violations. */
  readonly list: string[] = [];

  /** True once {@linkcode MAX_VIOLATIONS} were collected (walks stop early). */
  get full(): boolean {
    return this.list.length > MAX_VIOLATIONS;
  }

  /** Adds one violation; the one past the cap becomes {@linkcode MORE_VIOLATIONS}. */
  add(message: string): void {
    if (this.list.length < MAX_VIOLATIONS) this.list.push(message);
    else if (this.list.length === MAX_VIOLATIONS) this.list.push(MORE_VIOLATIONS);
  }
}

/** The path segments of a violation's leading path (`"a.b[2]"` or `arguments`), for sorting. */
function sortKey(violation: string): readonly (string | number)[] {
  if (!violation.startsWith('"')) return [];
  let end = 1;
  while (end < violation.length && violation[end] !== '"') end += violation[end] === "\\" ? 2 : 1;
  let path: unknown;
  try {
    path = JSON.parse(violation.slice(0, end + 1));
  } catch {
    return [];
  }
  return (String(path).match(/[^.[\]]+|\[\d+\]/g) ?? []).map((s) =>
    s.startsWith("[") ? Number(s.slice(1, -1)) : s
  );
}

/** Violations sorted by path (the root first, indices numerically); the "more" line stays last. */
export function sortByPath(list: readonly string[]): string[] {
  const keyed = list.filter((v) => v !== MORE_VIOLATIONS).map((v) => ({ v, key: sortKey(v) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  const out = keyed.map((entry) => entry.v);
  if (list.includes(MORE_VIOLATIONS)) out.push(MORE_VIOLATIONS);
  return out;
}

function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return x - y;
    if (typeof x === "number") return -1;
    if (typeof y === "number") return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
