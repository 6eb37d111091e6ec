import { ok } from "node:assert/strict";
import { MISTAKES } from "./arg_errors_mistakes.ts";
import { dshCheck, score, summary } from "./arg_errors_score.ts";

// Issue 21's table: fixed in one repair by the Vercel AI SDK 7 (77/95) and the MCP SDK (66/84).
const AI_SDK_FIXED = 77 / 95;
const MCP_FIXED = 66 / 84;

Deno.test("argument errors: the suite has at least 60 mistakes of every kind in issue 21", () => {
  ok(MISTAKES.length >= 60, `${MISTAKES.length} mistakes`);
  const kinds = new Set(MISTAKES.map((m) => m.kind));
  for (
    const kind of [
      "wrong type",
      "missing field",
      "extra key",
      "null",
      "enum typo",
      "out of range",
      "fractional integer",
      "wrong nesting",
      "trailing comma",
      "single quotes",
      "cut short",
      "big integer",
      "double-encoded",
      "union no branch",
    ]
  ) ok(kinds.has(kind), kind);
  ok(MISTAKES.some((m) => /\[\d+\]\./.test(m.path)), "a bad array item's field");
});

for (const form of ["dsl", "zod"] as const) {
  Deno.test(`argument errors (${form}): every message names path, expected, received; >= 95% fixed`, async () => {
    const s = await score(dshCheck(form), MISTAKES);
    const report = `${summary(`dsh-${form}`, s)}\n${
      s.unfixed.map((u) => `  ${u.mistake.tool} ${u.mistake.kind}: ${u.message}`).join("\n")
    }`;
    ok(s.path === s.detected, report);
    ok(s.expected === s.detected, report);
    ok(s.received === s.detected, report);
    ok(s.short === s.detected, report);
    const base = form === "dsl" ? s.detected : s.total;
    if (form === "zod") ok(s.detected === s.total, report);
    ok(s.fixed / base >= 0.95, report);
    ok(s.fixed / s.total > AI_SDK_FIXED && s.fixed / s.total > MCP_FIXED, report);
  });
}
