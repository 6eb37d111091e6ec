import { deepEqual, equal, notEqual, ok, throws } from "node:assert/strict";
import {
  isJsonSnapshot,
  isLosslessJson,
  JsonSnapshotError,
  snapshotJson,
} from "../../core/json.ts";

function sparse(): unknown[] {
  const a = [1, 2, 3];
  delete a[1];
  return a;
}

Deno.test("snapshotJson() accepts the lossless JSON table", () => {
  const accepted: [string, unknown][] = [
    ["null", null],
    ["booleans", [true, false]],
    ["strings", ["", "é", "\u0000"]],
    ["finite numbers", [0, 1.5, -2, Number.MAX_VALUE, Number.MIN_VALUE]],
    ["nested containers", { a: [{ b: [] }, {}] }],
    ["null-prototype object", Object.assign(Object.create(null), { a: 1 })],
    [
      "shared non-cyclic references",
      (() => {
        const shared = { x: 1 };
        return { a: shared, b: [shared, shared] };
      })(),
    ],
  ];
  for (const [label, value] of accepted) {
    deepEqual(snapshotJson(value), value, label);
    ok(isLosslessJson(value), label);
  }
});

Deno.test("snapshotJson() rejects the non-lossless table with path and reason", () => {
  class Point {
    x = 1;
  }
  const cyclic: Record<string, unknown> = { a: {} };
  (cyclic.a as Record<string, unknown>).self = cyclic;
  const rejected: [string, unknown, string][] = [
    ["undefined", { a: undefined }, '"a": undefined is not JSON'],
    ["function", { f() {} }, '"f": a function is not JSON'],
    ["symbol value", [Symbol("s")], '"[0]": a symbol is not JSON'],
    ["BigInt", { n: 1n }, '"n": a BigInt is not JSON'],
    ["NaN", { a: { b: [0, 1, NaN] } }, '"a.b[2]": NaN is not a finite number'],
    ["Infinity", [Infinity], '"[0]": Infinity is not a finite number'],
    ["-Infinity", [-Infinity], '"[0]": -Infinity is not a finite number'],
    ["-0", { z: -0 }, '"z": -0 is not representable in JSON'],
    ["sparse array", { list: sparse() }, '"list": the array is sparse (it has holes)'],
    [
      "array with extra props",
      Object.assign([1], { extra: true }),
      "the value: the array has extra own properties",
    ],
    [
      "array subclass",
      new (class List extends Array {})(),
      "the value: an array subclass is not a plain array",
    ],
    ["symbol key", { [Symbol("k")]: 1 }, "the value: the object has a symbol key Symbol(k)"],
    [
      "non-enumerable key",
      Object.defineProperty({}, "hidden", { value: 1 }),
      'the value: the object has a non-enumerable key "hidden"',
    ],
    [
      "class instance",
      { p: new Point() },
      '"p": an instance of class Point is not a plain object or array',
    ],
    ["Map", new Map(), "the value: a Map is not a plain object or array"],
    ["Set", [new Set()], '"[0]": a Set is not a plain object or array'],
    ["Date", { d: new Date(0) }, '"d": a Date is not a plain object or array'],
    ["RegExp", /x/, "the value: a RegExp is not a plain object or array"],
    ["typed array", new Uint8Array(1), "the value: a Uint8Array is not a plain object or array"],
    ["cycle", cyclic, '"a.self": the value is circular (it contains itself)'],
    [
      "odd key path",
      { "a b": { "c-d": [undefined] } },
      '"["a b"]["c-d"][0]": undefined is not JSON',
    ],
  ];
  for (const [label, value, where] of rejected) {
    const expected = where.startsWith("the value")
      ? `Cannot snapshot the value as lossless JSON${where.slice("the value".length)}`
      : `Cannot snapshot ${where.replace(/^("[^]*?"): /, "$1 as lossless JSON: ")}`;
    throws(() => snapshotJson(value), { name: "TypeError", message: expected }, label);
    equal(isLosslessJson(value), false, label);
  }
});

Deno.test("snapshotJson() copies, deep-freezes and ignores toJSON", () => {
  const source = { a: { b: [1, { c: "d" }] } };
  const copy = snapshotJson(source) as typeof source;
  notEqual(copy, source);
  notEqual(copy.a.b, source.a.b);
  ok(Object.isFrozen(copy) && Object.isFrozen(copy.a) && Object.isFrozen(copy.a.b[1]));
  source.a.b.push(2);
  deepEqual(copy, { a: { b: [1, { c: "d" }] } });
  throws(
    () => snapshotJson({ toJSON: () => 1 }),
    /"toJSON" as lossless JSON: a function is not JSON/,
  );
  equal(snapshotJson("s"), "s");
});

Deno.test("snapshotJson() reads getters exactly once and names the path of one that throws", () => {
  let reads = 0;
  const stateful = {
    get value() {
      reads++;
      return reads === 1 ? 1 : NaN;
    },
  };
  deepEqual(snapshotJson(stateful), { value: 1 });
  equal(reads, 1);
  const hostile = {
    get boom() {
      throw new RangeError("getter failed");
    },
  };
  throws(() => snapshotJson({ a: [0, hostile] }), (error: unknown) => {
    ok(error instanceof JsonSnapshotError);
    equal(error.path, "a[1].boom");
    equal(
      error.message,
      'Cannot snapshot "a[1].boom" as lossless JSON: its getter threw: getter failed',
    );
    equal(error.describe(), '"a[1].boom" could not be read (its getter threw: getter failed)');
    ok(error.value instanceof RangeError);
    return true;
  });
});

Deno.test("snapshotJson() keeps an own __proto__ key without prototype pollution", () => {
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
  const copy = snapshotJson(parsed) as Record<string, unknown>;
  deepEqual(Object.keys(copy), ["__proto__", "a"]);
  equal(Object.getPrototypeOf(copy), Object.prototype);
  equal((copy as { polluted?: unknown }).polluted, undefined);
  equal(({} as { polluted?: unknown }).polluted, undefined);
  deepEqual(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, { polluted: true });
});

Deno.test("snapshotJson() handles 10k-deep input without recursion", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 10_000; i++) deep = i % 2 === 0 ? [deep] : { d: deep };
  const copy = snapshotJson(deep);
  ok(Object.isFrozen(copy));
  const root: { next?: unknown } = {};
  let tail: { next?: unknown } = root;
  for (let i = 0; i < 100; i++) tail = (tail.next = {}) as { next?: unknown };
  tail.next = root;
  throws(() => snapshotJson(root), /the value is circular/);
  const shared = { leaf: true };
  let wide: unknown = shared;
  for (let i = 0; i < 100; i++) wide = { a: wide, b: shared };
  ok(Object.isFrozen(snapshotJson(wide)));
  let bad: unknown = NaN;
  for (let i = 0; i < 10_000; i++) bad = [bad];
  throws(() => snapshotJson(bad), /NaN is not a finite number/);
});

Deno.test("snapshotJson() accepts plain objects and arrays from another realm", async () => {
  const worker = new Worker(
    `data:text/javascript,postMessage({ a: [1, { b: null }] })`,
    { type: "module" },
  );
  const message = await new Promise<unknown>((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
  });
  worker.terminate();
  deepEqual(snapshotJson(message), { a: [1, { b: null }] });
});

Deno.test("snapshotJson() throws JsonSnapshotError with the failing path and reason as fields", () => {
  throws(() => snapshotJson({ list: [{ when: new Date(0) }] }), (error: unknown) => {
    ok(error instanceof JsonSnapshotError);
    ok(error instanceof TypeError);
    equal(error.path, "list[0].when");
    equal(error.reason, "a Date is not a plain object or array");
    return true;
  });
  throws(() => snapshotJson(Symbol("s")), (error: unknown) => {
    ok(error instanceof JsonSnapshotError);
    equal(error.path, "");
    return true;
  });
});

Deno.test("isJsonSnapshot(): the mark lives on the root, invisible to reflection, copies and proxies", () => {
  const snapshot = snapshotJson({ a: [1], b: { c: "x" } }) as Record<string, unknown>;
  equal(isJsonSnapshot(snapshot), true);
  deepEqual(Reflect.ownKeys(snapshot), ["a", "b"]);
  equal(isJsonSnapshot(snapshot.b), false, "only the root is marked");
  equal(isJsonSnapshot(structuredClone(snapshot)), false);
  equal(isJsonSnapshot({ ...snapshot }), false);
  equal(isJsonSnapshot(Object.create(snapshot)), false, "not inherited");
  const traps: string[] = [];
  const proxy = new Proxy(snapshot, {
    get: (t, k) => (traps.push(`get ${String(k)}`), Reflect.get(t, k)),
    has: (t, k) => (traps.push(`has ${String(k)}`), Reflect.has(t, k)),
    getOwnPropertyDescriptor: (
      t,
      k,
    ) => (traps.push("gopd"), Reflect.getOwnPropertyDescriptor(t, k)),
  });
  equal(isJsonSnapshot(proxy), false);
  deepEqual(traps, [], "no trap runs");
  const array = snapshotJson([1, 2]);
  equal(isJsonSnapshot(array), true);
  equal(Array.isArray(array) && array.length, 2);
});
