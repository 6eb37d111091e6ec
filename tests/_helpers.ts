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
