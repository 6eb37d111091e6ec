/**
 * Private: the paths a remote sandbox accepts. The workspace sits at the same absolute path as
 * on the host, so paths are not mapped, only checked: absolute (or relative to the workspace),
 * normalized, and inside the workspace or a writable root.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { isInside, resolvePath } from "../tools/paths.ts";

/**
 * The normalized path, or a `PERMISSION_DENIED` error naming the roots.
 *
 * @param path The caller's path.
 * @param roots The workspace first, then the writable roots (normalized).
 * @param what The operation for the message (`read`, `write`, `run in`).
 * @param name The sandbox's name.
 * @returns The normalized absolute path.
 */
export function checkedPath(
  path: string,
  roots: readonly string[],
  what: string,
  name: string,
): string {
  const absolute = resolvePath(path, roots[0]!);
  if (roots.some((root) => isInside(absolute, root))) return absolute;
  throw new HarnessError(
    "PERMISSION_DENIED",
    `Cannot ${what} "${path}": it is outside the workspace and writable roots of the ${name} (${
      roots.map((root) => `"${root}"`).join(", ")
    }); only those are mirrored there`,
  );
}

/** The parent directory of a normalized absolute path. */
export function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}
