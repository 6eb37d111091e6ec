import { equal } from "node:assert/strict";
import { isInside, resolvePath } from "../../tools/mod.ts";

Deno.test("resolvePath() resolves against the base and normalizes lexically", () => {
  equal(resolvePath("a/b", "/w"), "/w/a/b");
  equal(resolvePath("/abs", "/w"), "/abs");
  equal(resolvePath("a/../../..", "/w/x"), "/");
  equal(resolvePath("./a//b/./", "/w"), "/w/a/b");
  equal(resolvePath("", "/w/"), "/w");
  equal(resolvePath("..", "/"), "/");
});

Deno.test("isInside() is true for the root and below, never for a sibling prefix", () => {
  equal(isInside("/w", "/w"), true);
  equal(isInside("/w/a", "/w"), true);
  equal(isInside("/wx", "/w"), false);
  equal(isInside("/", "/w"), false);
  equal(isInside("/anything", "/"), true);
});
