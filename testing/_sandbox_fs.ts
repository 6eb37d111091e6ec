/**
 * The stand-in's file-system methods (`readFile`, `writeFile`, `stat`, `readDir`, `mkdir`,
 * `remove`, `rename`, file handles, `walk`, …): remote path `p` is `root + p` on the host, and a
 * path whose real location leaves the root (a symlink out) is refused.
 *
 * @module
 */
import { posix } from "node:path";
import { remotePath } from "./_sandbox_box.ts";
import {
  encodeStat,
  fromBase64,
  optionalParam,
  stringParam,
  toBase64,
  WireFailure,
} from "./_sandbox_wire.ts";

/** What an fs method needs from its connection. */
export interface FsContext {
  /** The sandbox root on the host. */
  readonly root: string;
  /** Open file handles of this connection. */
  readonly files: Map<number, Deno.FsFile>;
  /** A fresh file handle id (unique in the sandbox, across its connections). */
  newFileHandle(): number;
  /** Takes an inbound stream the client started (`contentStreamId`). */
  takeInbound(streamId: number): ReadableStream<Uint8Array>;
  /** Sends a stream to the client; returns its id. */
  sendStream(chunks: AsyncIterable<Uint8Array>): number;
}

type Params = Record<string, unknown>;
type FsMethod = (ctx: FsContext, params: Params) => Promise<unknown>;

/** The host path of a remote path; refuses paths whose real location leaves the root. */
export async function hostPath(root: string, path: string): Promise<string> {
  const remote = remotePath(path);
  let probe = remote;
  while (true) {
    const real = await Deno.realPath(`${root}${probe}`).catch(() => null);
    if (real !== null) {
      if (real !== root && !real.startsWith(`${root}/`)) {
        throw new WireFailure(
          "PermissionDenied",
          `Permission denied: '${remote}' resolves outside the sandbox's file system (stand-in)`,
          "EACCES",
        );
      }
      return `${root}${remote === "/" ? "" : remote}`;
    }
    if (probe === "/") return `${root}${remote}`;
    probe = posix.dirname(probe);
  }
}

function toRemote(root: string, host: string): string {
  return host === root ? "/" : host.startsWith(`${root}/`) ? host.slice(root.length) : host;
}

async function writeData(ctx: FsContext, params: Params, text: boolean): Promise<null> {
  const path = await hostPath(ctx.root, stringParam(params, "path"));
  const options = optionalParam<Params>(params, "options", "object") ?? {};
  const streamId = optionalParam<number>(params, "contentStreamId", "number");
  const write: Deno.WriteFileOptions = {
    append: options.append === true,
    create: options.create !== false,
    createNew: options.createNew === true,
  };
  if (typeof options.mode === "number") write.mode = options.mode;
  if (streamId !== undefined) {
    await Deno.writeFile(path, ctx.takeInbound(streamId), write);
  } else if (text) {
    await Deno.writeTextFile(path, stringParam(params, "content"), write);
  } else {
    await Deno.writeFile(path, fromBase64(stringParam(params, "content")), write);
  }
  return null;
}

function handle(ctx: FsContext, params: Params): Deno.FsFile {
  const id = params.fileHandleId;
  const file = typeof id === "number" ? ctx.files.get(id) : undefined;
  if (file === undefined) {
    throw new WireFailure("BadResource", `Bad resource ID: file handle ${String(id)}`, null);
  }
  return file;
}

async function openFile(ctx: FsContext, path: string, options: Deno.OpenOptions) {
  const file = await Deno.open(await hostPath(ctx.root, path), options);
  const fileHandleId = ctx.newFileHandle();
  ctx.files.set(fileHandleId, file);
  return { fileHandleId };
}

async function* walkEntries(
  root: string,
  dir: string,
  depth: number,
  params: Params,
): AsyncGenerator<Record<string, unknown>> {
  const maxDepth = optionalParam<number>(params, "maxDepth", "number") ?? Infinity;
  const includeFiles = params.includeFiles !== false;
  const includeDirs = params.includeDirs !== false;
  const exts = Array.isArray(params.exts) ? params.exts as string[] : null;
  if (depth === 0 && includeDirs) {
    yield {
      path: dir,
      name: posix.basename(dir),
      isFile: false,
      isDirectory: true,
      isSymlink: false,
    };
  }
  if (depth >= maxDepth) return;
  for await (const entry of Deno.readDir(`${root}${dir === "/" ? "" : dir}`)) {
    const path = posix.join(dir, entry.name);
    const row = { path, name: entry.name, ...kind(entry) };
    if (entry.isDirectory) {
      if (includeDirs) yield row;
      yield* walkEntries(root, path, depth + 1, { ...params, includeDirs });
      continue;
    }
    if (!includeFiles) continue;
    if (exts !== null && !exts.some((ext) => entry.name.endsWith(ext))) continue;
    yield row;
  }
}

function kind(entry: Deno.DirEntry) {
  return { isFile: entry.isFile, isDirectory: entry.isDirectory, isSymlink: entry.isSymlink };
}

async function* jsonChunks(rows: AsyncIterable<Record<string, unknown>>) {
  const encoder = new TextEncoder();
  for await (const row of rows) yield encoder.encode(JSON.stringify(row));
}

const pathOf = (params: Params, name = "path") => stringParam(params, name);

/** The fs methods by JSON-RPC name. */
export const FS_METHODS: Readonly<Record<string, FsMethod>> = {
  readFile: async (ctx, p) => toBase64(await Deno.readFile(await hostPath(ctx.root, pathOf(p)))),
  readTextFile: async (ctx, p) => await Deno.readTextFile(await hostPath(ctx.root, pathOf(p))),
  writeFile: (ctx, p) => writeData(ctx, p, false),
  writeTextFile: (ctx, p) => writeData(ctx, p, true),
  stat: async (ctx, p) => encodeStat(await Deno.stat(await hostPath(ctx.root, pathOf(p)))),
  lstat: async (ctx, p) => encodeStat(await Deno.lstat(await hostPath(ctx.root, pathOf(p)))),
  readDir: async (ctx, p) => {
    const rows = [];
    for await (const entry of Deno.readDir(await hostPath(ctx.root, pathOf(p)))) {
      rows.push({ name: entry.name, ...kind(entry) });
    }
    return rows.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  },
  mkdir: async (ctx, p) => {
    const options = optionalParam<Params>(p, "options", "object") ?? {};
    const mkdir: Deno.MkdirOptions = { recursive: options.recursive === true };
    if (typeof options.mode === "number") mkdir.mode = options.mode;
    await Deno.mkdir(await hostPath(ctx.root, pathOf(p)), mkdir);
    return null;
  },
  remove: async (ctx, p) => {
    const options = optionalParam<Params>(p, "options", "object") ?? {};
    const path = await hostPath(ctx.root, pathOf(p));
    if (path === ctx.root) throw new WireFailure("PermissionDenied", "cannot remove '/'", "EACCES");
    await Deno.remove(path, { recursive: options.recursive === true });
    return null;
  },
  rename: async (ctx, p) => {
    const from = await hostPath(ctx.root, pathOf(p, "oldPath"));
    await Deno.rename(from, await hostPath(ctx.root, pathOf(p, "newPath")));
    return null;
  },
  copyFile: async (ctx, p) => {
    const from = await hostPath(ctx.root, pathOf(p, "fromPath"));
    await Deno.copyFile(from, await hostPath(ctx.root, pathOf(p, "toPath")));
    return null;
  },
  chmod: async (ctx, p) => {
    await Deno.chmod(await hostPath(ctx.root, pathOf(p)), Number(p.mode));
    return null;
  },
  symlink: async (ctx, p) => {
    await Deno.symlink(stringParam(p, "target"), await hostPath(ctx.root, pathOf(p)));
    return null;
  },
  readLink: async (ctx, p) => await Deno.readLink(await hostPath(ctx.root, pathOf(p))),
  realPath: async (ctx, p) =>
    toRemote(ctx.root, await Deno.realPath(await hostPath(ctx.root, pathOf(p)))),
  truncate: async (ctx, p) => {
    const length = optionalParam<number>(p, "length", "number");
    await Deno.truncate(await hostPath(ctx.root, pathOf(p, "name")), length);
    return null;
  },
  makeTempDir: async (ctx, p) => {
    const options = optionalParam<Params>(p, "options", "object") ?? {};
    const dir = await hostPath(ctx.root, typeof options.dir === "string" ? options.dir : "/tmp");
    const made = await Deno.makeTempDir({ ...tempOptions(options), dir });
    return toRemote(ctx.root, made);
  },
  makeTempFile: async (ctx, p) => {
    const options = optionalParam<Params>(p, "options", "object") ?? {};
    const dir = await hostPath(ctx.root, typeof options.dir === "string" ? options.dir : "/tmp");
    const made = await Deno.makeTempFile({ ...tempOptions(options), dir });
    return toRemote(ctx.root, made);
  },
  open: (ctx, p) => {
    const options = optionalParam<Params>(p, "options", "object") ?? { read: true };
    const open: Deno.OpenOptions = {};
    for (const key of ["read", "write", "append", "truncate", "create", "createNew"] as const) {
      if (typeof options[key] === "boolean") open[key] = options[key] as boolean;
    }
    if (typeof options.mode === "number") open.mode = options.mode;
    return openFile(ctx, pathOf(p), open);
  },
  create: (ctx, p) =>
    openFile(ctx, pathOf(p), { read: true, write: true, create: true, truncate: true }),
  fileRead: async (ctx, p) => {
    const buffer = new Uint8Array(Math.max(0, Number(p.length) || 0));
    const read = await handle(ctx, p).read(buffer);
    return { data: read === null ? null : toBase64(buffer.subarray(0, read)) };
  },
  fileWrite: async (ctx, p) => ({
    bytesWritten: await handle(ctx, p).write(fromBase64(stringParam(p, "data"))),
  }),
  fileSeek: async (ctx, p) => ({
    position: await handle(ctx, p).seek(Number(p.offset), Number(p.whence) as Deno.SeekMode),
  }),
  fileStat: async (ctx, p) => encodeStat(await handle(ctx, p).stat()),
  fileTruncate: async (ctx, p) => {
    await handle(ctx, p).truncate(optionalParam<number>(p, "len", "number"));
    return null;
  },
  fileSync: async (ctx, p) => (await handle(ctx, p).sync(), null),
  fileSyncData: async (ctx, p) => (await handle(ctx, p).syncData(), null),
  fileClose: (ctx, p) => {
    handle(ctx, p).close();
    ctx.files.delete(p.fileHandleId as number);
    return Promise.resolve(null);
  },
  walk: async (ctx, p) => {
    const start = remotePath(pathOf(p));
    await Deno.stat(await hostPath(ctx.root, start));
    return { streamId: ctx.sendStream(jsonChunks(walkEntries(ctx.root, start, 0, p))) };
  },
};

function tempOptions(options: Params): Deno.MakeTempOptions {
  const made: Deno.MakeTempOptions = {};
  if (typeof options.prefix === "string") made.prefix = options.prefix;
  if (typeof options.suffix === "string") made.suffix = options.suffix;
  return made;
}
