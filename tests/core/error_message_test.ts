import { equal } from "node:assert/strict";
import { errorMessage } from "../../core/error_message.ts";

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
