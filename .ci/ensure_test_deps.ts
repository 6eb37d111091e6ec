/**
 * `deno task test`'s first step: installs the npm test peers (test_deps/) only when they are
 * missing or test_deps/package.json / package-lock.json changed since the last install, so an
 * offline run after one install works. The stamp is a SHA-256 of both files, kept in
 * test_deps/node_modules/.dsh-stamp. `deno task test` runs it first.
 *
 * @module
 */

/** The test peers' folder. */
export const TEST_DEPS: URL = new URL("../test_deps/", import.meta.url);

async function fingerprint(root: URL): Promise<string> {
  const parts: Uint8Array[] = [];
  for (const name of ["package.json", "package-lock.json"]) {
    try {
      parts.push(await Deno.readFile(new URL(name, root)));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    parts.push(new TextEncoder().encode(`\0${name}\0`));
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function readStamp(root: URL): Promise<string | undefined> {
  try {
    return (await Deno.readTextFile(new URL("node_modules/.dsh-stamp", root))).trim();
  } catch {
    return undefined;
  }
}

/**
 * Installs the peers unless the stamp matches.
 *
 * @param root The folder with package.json (a `file:` URL ending in `/`).
 * @returns Whether `npm install` ran.
 */
export async function ensureTestDeps(root: URL = TEST_DEPS): Promise<boolean> {
  if (await readStamp(root) === await fingerprint(root)) return false;
  const { success } = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      decodeURIComponent(root.pathname),
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success) throw new Error("Cannot install the test peers: npm install failed (see above)");
  // npm may rewrite the lock file, so fingerprint after the install.
  await Deno.mkdir(new URL("node_modules/", root), { recursive: true });
  await Deno.writeTextFile(
    new URL("node_modules/.dsh-stamp", root),
    (await fingerprint(root)) + "\n",
  );
  return true;
}

if (import.meta.main) {
  try {
    const ran = await ensureTestDeps();
    if (!ran) console.error("test_deps: up to date (delete test_deps/node_modules to reinstall)");
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
}
