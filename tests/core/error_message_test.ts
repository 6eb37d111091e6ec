import { equal } from "node:assert/strict";
import { describeValue, errorMessage } from "../../core/error_message.ts";

Deno.test("errorMessage() normalizes every kind of thrown value", () => {
  const table: [string, unknown, string][] = [
    ["Error", new TypeError("bad"), "bad"],
    ["empty message", new Error(""), "Error"],
    ["message-bearing object", { message: "from object" }, "from object"],
    ["string", "plain", "plain"],
    ["number", 42, "42"],
    ["undefined", undefined, "undefined"],
    ["null-prototype object", Object.create(null), "<unprintable thrown value>"],
    ["throwing toString", {
      toString: () => {
        throw new Error("x");
      },
    }, "<unprintable thrown value>"],
    ["throwing message getter", {
      get message() {
        throw new Error("x");
      },
    }, "<unprintable thrown value>"],
    ["symbol", Symbol("s"), "Symbol(s)"],
  ];
  for (const [label, value, expected] of table) equal(errorMessage(value), expected, label);
});

Deno.test("describeValue() prints any received value safely and cut to 200 characters", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const table: [string, unknown, string][] = [
    ["undefined", undefined, "undefined"],
    ["string", "soon", '"soon"'],
    ["number", 1.5, "1.5"],
    ["-0", -0, "-0"],
    ["NaN", NaN, "NaN"],
    ["function", () => 1, "a function"],
    ["symbol", Symbol("s"), "a symbol"],
    ["bigint", 1n, "a bigint"],
    ["object", { a: [1] }, '{"a":[1]}'],
    ["cyclic object", cyclic, "an object"],
    ["long string", "x".repeat(300), `"${"x".repeat(199)}…`],
  ];
  for (const [label, value, expected] of table) equal(describeValue(value), expected, label);
});
