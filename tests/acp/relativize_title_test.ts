import { equal } from "node:assert/strict";
import { relativizeTitle } from "../../acp/relativize_title.ts";

Deno.test("relativizeTitle() replaces every occurrence of an inside path", () => {
  equal(relativizeTitle("/w/a.ts -> /w/a.ts", "/w/a.ts", "/w"), "a.ts -> a.ts");
});

Deno.test("relativizeTitle() keeps paths that escape the workspace", () => {
  equal(relativizeTitle("Read /x/a", "/x/a", "/w"), "Read /x/a");
  equal(relativizeTitle("Read /parent", "/parent", "/parent/w"), "Read /parent");
});

Deno.test("relativizeTitle() treats a name starting with two dots as inside", () => {
  equal(relativizeTitle("Write /w/..cache/x", "/w/..cache/x", "/w"), "Write ..cache/x");
});

Deno.test("relativizeTitle() leaves relative paths and relative cwds unchanged", () => {
  equal(relativizeTitle("Edit a.ts", "a.ts", "/w"), "Edit a.ts");
  equal(relativizeTitle("Edit /w/a.ts", "/w/a.ts", "w"), "Edit /w/a.ts");
});
