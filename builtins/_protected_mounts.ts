/**
 * Private: turns the protected paths (`protected_paths.ts`) into the mounts of one sandboxed
 * spawn ({@linkcode ProtectedMounts}), read from the host just before it starts, and keeps count
 * of the placeholder folders bwrap leaves on the host so the last run using one removes it.
 *
 * Only paths the sandbox could change matter: those inside a writable root (the rest of the
 * file system is read-only already). For each one:
 *
 * - it exists: bound read-only (a `.git` pointer file also protects the git dir it names);
 * - it is missing: the first missing component, when its folder is writable, gets an empty
 *   read-only folder for the run. The mount point has to exist in the host folder: the executor
 *   creates it (an empty folder, which git does not show) just before the spawn
 *   ({@linkcode holdPlaceholders}) and removes it after the run if it is still empty;
 * - every folder between the root and the path is bound onto itself: a mount point cannot be
 *   renamed, so `mv plugins old && mkdir plugins` cannot swap the path out from under its bind.
 *
 * A symlink at a protected path (or above it) cannot be pinned: its target is protected, the
 * link itself is not (SECURITY.md, known limits).
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { isInside, resolvePath } from "../tools/paths.ts";
import type { ProtectedMounts } from "./bwrap_args.ts";

type Kind = "dir" | "file" | "link" | "none";

async function kindOf(path: string): Promise<Kind> {
  try {
    const info = await Deno.lstat(path);
    return info.isSymlink ? "link" : info.isDirectory ? "dir" : "file";
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return "none";
    }
    throw new Error(`Cannot protect "${path}" in the sandbox: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash <= 0 ? "/" : path.slice(0, slash);
}

/** The innermost root holding `path`, if any. */
function rootOf(path: string, roots: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const root of roots) {
    if (isInside(path, root) && (best === undefined || root.length > best.length)) best = root;
  }
  return best;
}

/** Folders strictly between `root` and `path`, outermost first. */
function between(root: string, path: string): string[] {
  const out: string[] = [];
  for (let dir = parentOf(path); dir !== root && isInside(dir, root); dir = parentOf(dir)) {
    out.unshift(dir);
  }
  return out;
}

/** The git dir (and common dir) a `.git` pointer file names, when it is one. */
async function gitDirsOf(pointer: string): Promise<string[]> {
  let text: string;
  try {
    const file = await Deno.open(pointer);
    try {
      const buffer = new Uint8Array(4096);
      text = new TextDecoder().decode(buffer.subarray(0, await file.read(buffer) ?? 0));
    } finally {
      file.close();
    }
  } catch {
    return [];
  }
  const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
  if (gitdir === undefined) return [];
  const dir = resolvePath(gitdir, parentOf(pointer));
  const common = await Deno.readTextFile(`${dir}/commondir`).then(
    (t) => [resolvePath(t.trim(), dir)],
    () => [],
  );
  return [dir, ...common];
}

/**
 * The mounts that protect `paths` in a sandbox whose writable roots are `roots`.
 *
 * @param paths Absolute, normalized protected paths.
 * @param roots The existing writable roots (absolute, normalized).
 * @param live Placeholders other runs hold now (still placeholders, though they exist).
 * @returns The mounts.
 */
export async function protectedMounts(
  paths: readonly string[],
  roots: readonly string[],
  live: ReadonlySet<string> = new Set(),
): Promise<ProtectedMounts> {
  const readOnly = new Set<string>();
  const placeholders = new Set<string>();
  const pinned = new Set<string>();
  const queue = [...new Set(paths)];
  for (let i = 0; i < queue.length; i++) {
    const path = queue[i]!;
    const root = rootOf(path, roots);
    if (root === undefined) {
      // A protected folder that holds a writable root keeps the root read-only.
      const holds = roots.some((r) => isInside(r, path));
      if (holds && await kindOf(path).catch(() => "none") === "dir") readOnly.add(path);
      continue;
    }
    // Inside a writable root the agent may read everything: a failure here is a real error,
    // and the spawn fails rather than run with the path unprotected.
    let target = path;
    let kind = live.has(path) ? "none" : await kindOf(path);
    while (kind === "none" && target !== root) {
      const parent = parentOf(target);
      const parentKind = live.has(parent) ? "none" : await kindOf(parent);
      if (parentKind !== "none") {
        if (parentKind === "dir") placeholders.add(target);
        break;
      }
      target = parent;
      kind = "none";
    }
    if (kind === "link") {
      const real = await Deno.realPath(path).catch(() => undefined);
      if (real !== undefined && !queue.includes(real)) queue.push(real);
      continue;
    }
    if (kind === "dir" || kind === "file") {
      readOnly.add(path);
      if (kind === "file" && path.endsWith("/.git")) {
        for (const dir of await gitDirsOf(path)) if (!queue.includes(dir)) queue.push(dir);
      }
    }
    for (const dir of between(root, target)) {
      if (await kindOf(dir) === "dir") pinned.add(dir);
    }
  }
  // Inside a read-only bind nothing needs pinning, binding or holding again.
  const covered = (p: string) => [...readOnly].some((r) => r !== p && isInside(p, r));
  const held = new Set([...readOnly, ...placeholders]);
  return {
    pinned: [...pinned].filter((p) => !held.has(p) && !covered(p) && !roots.includes(p)),
    readOnly: [...readOnly].filter((p) => !covered(p)),
    placeholders: [...placeholders].filter((p) => !covered(p)),
  };
}

/** Placeholders this process created and still holds, with their count of runs. */
const HELD = new Map<string, number>();

/**
 * The placeholders other runs of this process hold now.
 *
 * @returns The set.
 */
export function livePlaceholders(): ReadonlySet<string> {
  return new Set(HELD.keys());
}

/** The placeholders of one run, and their release. */
export interface HeldPlaceholders {
  /** The placeholders to mount (those the sandbox could otherwise create). */
  readonly paths: readonly string[];
  /** Lets go of them: the last run removes each one, when it is still an empty folder. */
  readonly release: () => Promise<void>;
}

/**
 * Creates (or joins) the placeholder folders of one run on the host before bwrap mounts over
 * them, so bwrap never has to create a mount point itself. A folder the agent cannot create a
 * name in (no write access) is one the sandbox cannot either: that placeholder is dropped. As
 * root the agent can create it anywhere (the sandbox, without capabilities, might not).
 *
 * @param paths The run's placeholders.
 * @returns What to mount and the release.
 */
export async function holdPlaceholders(paths: readonly string[]): Promise<HeldPlaceholders> {
  const mounted: string[] = [];
  const owned: string[] = [];
  for (const path of paths) {
    const count = HELD.get(path);
    if (count !== undefined) {
      HELD.set(path, count + 1);
      mounted.push(path);
      owned.push(path);
      continue;
    }
    try {
      await Deno.mkdir(path);
      HELD.set(path, 1);
      mounted.push(path);
      owned.push(path);
    } catch (error) {
      // Made on the host since the check: protect it, but it is not ours to remove.
      if (error instanceof Deno.errors.AlreadyExists) mounted.push(path);
      else if (!isUnwritable(error)) throw placeholderError(path, error);
    }
  }
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    for (const path of owned) {
      const count = (HELD.get(path) ?? 1) - 1;
      if (count > 0) {
        HELD.set(path, count);
        continue;
      }
      HELD.delete(path);
      // Not recursive: only an empty folder goes.
      if (await kindOf(path).catch(() => "none") === "dir") {
        await Deno.remove(path).catch(() => {});
      }
    }
  };
  return { paths: mounted, release };
}

function isUnwritable(error: unknown): boolean {
  return error instanceof Deno.errors.PermissionDenied ||
    (error instanceof Error && /read-only file system|EROFS/i.test(error.message));
}

function placeholderError(path: string, error: unknown): Error {
  return new Error(
    `Cannot protect "${path}" in the sandbox: cannot create its placeholder folder: ${
      errorMessage(error)
    }`,
    { cause: error },
  );
}

let turn: Promise<unknown> = Promise.resolve();

/** Runs `body` after every earlier one finished (placeholders are decided and held atomically). */
function serialized<T>(body: () => Promise<T>): Promise<T> {
  const run = turn.then(body);
  turn = run.catch(() => {});
  return run;
}

/**
 * The mounts of one spawn with their placeholders held, decided while no other run of this
 * process decides or releases (so no run binds a placeholder another run is about to remove).
 *
 * @param paths Absolute, normalized protected paths.
 * @param roots The existing writable roots.
 * @returns The mounts (placeholders: those held) and the release, for after the run.
 */
export function protectForSpawn(
  paths: readonly string[],
  roots: readonly string[],
): Promise<{ mounts: ProtectedMounts; release: () => Promise<void> }> {
  return serialized(async () => {
    const mounts = await protectedMounts(paths, roots, livePlaceholders());
    const held = await holdPlaceholders(mounts.placeholders);
    return {
      mounts: { ...mounts, placeholders: held.paths },
      release: () => serialized(held.release),
    };
  });
}
