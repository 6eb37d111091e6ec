/**
 * Private: resolves the static part of the sandbox profile against the host once per executor
 * (which credential paths exist and how to hide them, which runtime and `/proc` paths to mask).
 *
 * @module
 */
import { isInside } from "../tools/paths.ts";
import {
  type BwrapProfile,
  DEFAULT_HIDDEN_PATHS,
  type HiddenPath,
  MASKED_RUNTIME_DIRS,
  PROC_MASKED,
  PROC_READ_ONLY,
} from "./bwrap_args.ts";

/** The options the profile depends on (a subset of the executor's). */
export interface ProfileOptions {
  readonly workspace: string;
  readonly level?: "read-only" | "workspace-write";
  readonly writableRoots?: readonly string[];
  readonly hiddenPaths?: readonly string[];
  readonly home?: string | undefined;
  readonly runtimeDir?: string | undefined;
  readonly configHome?: string | undefined;
  readonly stateHome?: string | undefined;
}

/** A variable of the agent, `undefined` when unset or not readable under its profile. */
export function envValue(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * Classifies paths on the host with a shell (the agent's Deno profile may not stat them).
 * A symlinked runtime dir (`/var/run -> /run`) counts as missing: its target is masked itself.
 */
export async function classify(
  paths: readonly string[],
): Promise<("dir" | "file" | "link" | "none")[]> {
  if (paths.length === 0) return [];
  const script =
    'for p in "$@"; do if [ -L "$p" ]; then echo link; elif [ -d "$p" ]; then echo dir; elif [ -e "$p" ]; then echo file; else echo none; fi; done';
  const output = await new Deno.Command("bash", {
    args: ["-c", script, "classify", ...paths],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
  }).output();
  const kinds = new TextDecoder().decode(output.stdout).trim().split("\n");
  return paths.map((_, i) => (kinds[i] ?? "none") as "dir" | "file" | "link" | "none");
}

/**
 * The hidden list with the XDG locations of dsh's own folders added when `XDG_CONFIG_HOME` or
 * `XDG_STATE_HOME` moves them (and the default entry was not removed).
 */
function withUserDirs(list: readonly string[], options: ProfileOptions): string[] {
  const out = [...list];
  const config = options.configHome ?? envValue("XDG_CONFIG_HOME");
  const state = options.stateHome ?? envValue("XDG_STATE_HOME");
  if (config?.startsWith("/") && list.includes("~/.config/dsh")) out.push(`${config}/dsh`);
  if (state?.startsWith("/") && list.includes("~/.local/state/dsh")) out.push(`${state}/dsh`);
  return out;
}

/**
 * Resolves the static part of the profile on the host: the paths to hide and mask, classified.
 *
 * @param options The executor's options.
 * @returns The profile (with the socket filter on).
 */
export async function resolveProfile(options: ProfileOptions): Promise<BwrapProfile> {
  const home = options.home ?? envValue("HOME");
  const expand = (p: string) =>
    p === "~"
      ? home
      : p.startsWith("~/")
      ? (home === undefined ? undefined : home + p.slice(1))
      : p;
  const wanted = withUserDirs(options.hiddenPaths ?? DEFAULT_HIDDEN_PATHS, options).map(expand)
    .filter((
      p,
    ): p is string => p !== undefined && p.startsWith("/"));
  const roots = [options.workspace, ...(options.writableRoots ?? [])];
  // A hidden folder that holds a workspace root would hide the workspace: the user chose it.
  const hideable = wanted.filter((p) => !roots.some((root) => isInside(root, p)));
  const runtime = options.runtimeDir ?? envValue("XDG_RUNTIME_DIR");
  const maskCandidates = [...MASKED_RUNTIME_DIRS];
  if (runtime?.startsWith("/") && !MASKED_RUNTIME_DIRS.some((d) => isInside(runtime, d))) {
    maskCandidates.push(runtime);
  }
  const procKinds = await classify([...PROC_READ_ONLY, ...PROC_MASKED]);
  const procReadOnly = PROC_READ_ONLY.filter((_, i) => procKinds[i] !== "none");
  const procMasked: HiddenPath[] = [];
  PROC_MASKED.forEach((path, i) => {
    const kind = procKinds[PROC_READ_ONLY.length + i];
    if (kind === "dir" || kind === "file") procMasked.push({ path, kind });
  });
  const kinds = await classify([...maskCandidates, ...hideable]);
  const masked = maskCandidates.filter((_, i) => kinds[i] === "dir");
  const hidden: HiddenPath[] = [];
  hideable.forEach((path, i) => {
    const kind = kinds[maskCandidates.length + i];
    if (kind === "dir" || kind === "link") hidden.push({ path, kind: "dir" });
    else if (kind === "file") hidden.push({ path, kind: "file" });
  });
  // A symlink to a file would take a tmpfs: probe it again through the link.
  const links = hidden.filter((h) =>
    kinds[maskCandidates.length + hideable.indexOf(h.path)] === "link"
  );
  if (links.length > 0) {
    const through = await classify(links.map((h) => `${h.path}/.`));
    links.forEach((link, i) => {
      const index = hidden.indexOf(link);
      if (through[i] !== "dir") hidden[index] = { path: link.path, kind: "file" };
    });
  }
  return {
    level: options.level ?? "workspace-write",
    writableRoots: options.writableRoots ?? [],
    masked,
    hidden,
    userns: true,
    procReadOnly,
    procMasked,
    seccomp: true,
  };
}
