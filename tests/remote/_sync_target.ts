/**
 * A real `SyncTarget` over a second temp folder: the "remote" folder is bind-mounted (bubblewrap)
 * at the host workspace's absolute path for every `capture`, as a remote environment shows the
 * workspace at the same path; `readFile`, `writeFile` and `remove` map the path prefix.
 *
 * @module
 */
import type { SyncTarget } from "../../remote/mod.ts";

/** Counts of the calls a sync made. */
export interface TargetCalls {
  captures: number;
  reads: number;
  writes: number;
  removes: number;
}

/** A remote side in a temp folder. */
export class DirTarget implements SyncTarget {
  /** Calls so far. */
  readonly calls: TargetCalls = { captures: 0, reads: 0, writes: 0, removes: 0 };

  /**
   * @param host The host workspace (the path the remote shows).
   * @param remote The folder that holds the remote workspace.
   */
  constructor(readonly host: string, readonly remote: string) {}

  /** The remote folder's path for a workspace path. */
  map(path: string): string {
    if (path !== this.host && !path.startsWith(`${this.host}/`)) {
      throw new Error(`outside the remote workspace: ${path}`);
    }
    return this.remote + path.slice(this.host.length);
  }

  async readFile(path: string): Promise<Uint8Array> {
    this.calls.reads++;
    return await Deno.readFile(this.map(path));
  }

  async writeFile(path: string, data: Uint8Array): Promise<void> {
    this.calls.writes++;
    const mapped = this.map(path);
    await Deno.mkdir(mapped.slice(0, mapped.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(mapped, data);
  }

  async remove(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    this.calls.removes++;
    await Deno.remove(this.map(path), { recursive: options.recursive === true }).catch(
      (error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      },
    );
  }

  async capture(script: string): Promise<string> {
    this.calls.captures++;
    return new TextDecoder().decode(await this.runBytes(script));
  }

  /** Runs a command "remotely" (as the model would), in the workspace; throws on failure. */
  async run(command: string): Promise<string> {
    return new TextDecoder().decode(await this.runBytes(`cd -- '${this.host}' && ${command}`));
  }

  async runBytes(script: string): Promise<Uint8Array> {
    const output = await new Deno.Command("bwrap", {
      // bwrap cannot mount onto a symlink: the real path of the workspace takes the mount.
      args: [
        "--dev-bind",
        "/",
        "/",
        "--bind",
        this.remote,
        Deno.realPathSync(this.host),
        "bash",
        "-c",
        script,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(
        `remote script failed (${output.code}${output.signal ? `, ${output.signal}` : ""}): ${
          new TextDecoder().decode(output.stderr)
        }`,
      );
    }
    return output.stdout;
  }
}

/** Every regular file under `root` (relative path → content), symlinks not followed. */
export async function filesOf(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (folder: string, prefix: string) => {
    for await (const entry of Deno.readDir(folder)) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory) await walk(`${folder}/${entry.name}`, rel);
      else if (entry.isFile) out.set(rel, await Deno.readTextFile(`${folder}/${entry.name}`));
    }
  };
  await walk(root, "");
  return out;
}

/** Writes files (relative path → content) under `root`, making folders. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = `${root}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
}
