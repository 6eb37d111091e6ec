/** Shared test helpers (real resources, no mocking library). */

/** A temp dir removed on dispose: `await using dir = await tempDir();`. */
export async function tempDir(prefix = "dsh_test_"): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** True while `pid` exists and is not a zombie (reads `/proc`, so the test needs `--allow-all`). */
export function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}
