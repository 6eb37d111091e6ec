import { equal } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureTestDeps } from "../../.ci/ensure_test_deps.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("ensureTestDeps() runs npm install only when the peers are missing or changed", async () => {
  await using dir = await tempDir();
  const root = pathToFileURL(dir.path + "/");
  const manifest = (description: string) =>
    JSON.stringify({ name: "peers", private: true, description, dependencies: {} });
  await Deno.writeTextFile(join(dir.path, "package.json"), manifest("a"));
  equal(await ensureTestDeps(root), true, "first run installs");
  equal(await ensureTestDeps(root), false, "unchanged: no npm (works offline)");
  await Deno.writeTextFile(join(dir.path, "package.json"), manifest("b"));
  equal(await ensureTestDeps(root), true, "a changed package.json reinstalls");
  await Deno.remove(join(dir.path, "node_modules"), { recursive: true });
  equal(await ensureTestDeps(root), true, "missing node_modules reinstalls");
  equal(await ensureTestDeps(root), false);
});
