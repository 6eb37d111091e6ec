/**
 * The executors every behaviour suite runs over (tests/builtins/executor_matrix_test.ts,
 * tests/codemode/executor_matrix_test.ts): each case makes a fresh executor and workspace and
 * tears both down. A suite reads and writes the workspace through the executor only (never
 * `Deno.*` on the host), so the same assertions hold for a remote environment.
 *
 * Add a provider with one entry in {@linkcode EXECUTOR_CASES} (see {@linkcode DENO_SANDBOX_CASE}).
 */
import { LocalExecutor } from "../builtins/local_executor.ts";
import { createSandboxExecutor } from "../builtins/sandbox.ts";
import { denoSandboxExecutor } from "../remote/mod.ts";
import { startSandboxStandIn } from "../testing/deno_sandbox_stand_in.ts";
import type {
  DirEntry,
  ExecChild,
  Executor,
  ExecutorRecord,
  FileStat,
  RunOptions,
  RunResult,
  SpawnOptions,
} from "../tools/executor.ts";

/** One executor under test with its workspace. */
export interface ExecutorSetup {
  /** The executor (the suites call `forSession` on it like the tools do). */
  readonly executor: Executor;
  /** The workspace: absolute, existing in the executor's environment, writable there. */
  readonly workspace: string;
  /** Tears the executor and the workspace down. */
  close(): Promise<void>;
}

/** A named way to make an {@linkcode ExecutorSetup}. */
export interface ExecutorCase {
  /** Shown in the test names. */
  readonly name: string;
  /** Makes a fresh executor and workspace. */
  setup(): Promise<ExecutorSetup>;
}

/** A fresh host temp folder as the workspace (its real path: the tools resolve symlinks). */
async function hostWorkspace(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "dsh_matrix_" }));
  return { path, remove: () => Deno.remove(path, { recursive: true }).catch(() => {}) };
}

let denoBin: Promise<string> | undefined;

/**
 * A folder whose `deno` is this test's Deno binary. A remote environment has a real `deno` on its
 * PATH; a test run's PATH may instead hold npm's `deno` shim (`npx deno`: a Node script, which the
 * Code Mode sandbox's `PATH=/usr/bin:/bin` cannot start).
 */
function realDenoBin(): Promise<string> {
  return denoBin ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "dsh_deno_bin_" });
    await Deno.symlink(Deno.execPath(), `${dir}/deno`);
    return dir;
  })();
}

/**
 * The files-only view of another executor: it forwards every call but has no `openFile` and
 * says its files are not this machine's (`hostFiles: false`), like a remote environment. So the
 * fs tools take their plain `stat`/`readFile`/`writeFile` path and Code Mode looks up `deno`
 * and makes its private folder through the executor, without a network.
 */
export class FilesOnlyExecutor implements Executor {
  /** `"files-only"`. */
  readonly kind: string = "files-only";
  /** Paths are treated as another environment's. */
  readonly hostFiles: boolean = false;
  readonly #inner: Executor;

  /** @param inner The executor that does the work. */
  constructor(inner: Executor) {
    this.#inner = inner;
  }

  /** Forwards; without a PATH of the caller's, a real `deno` comes first (as remotely). */
  async run(command: string, options?: RunOptions): Promise<RunResult> {
    const path = options?.env?.PATH ??
      `${await realDenoBin()}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
    return await this.#inner.run(command, { ...options, env: { ...options?.env, PATH: path } });
  }
  /** Forwards. */
  spawn(program: string, options?: SpawnOptions): Promise<ExecChild> {
    return this.#inner.spawn(program, options);
  }
  /** Forwards. */
  readFile(path: string): Promise<Uint8Array> {
    return this.#inner.readFile(path);
  }
  /** Forwards. */
  writeFile(path: string, data: string | Uint8Array): Promise<void> {
    return this.#inner.writeFile(path, data);
  }
  /** Forwards. */
  stat(path: string): Promise<FileStat | undefined> {
    return this.#inner.stat(path);
  }
  /** Forwards. */
  readDir(path: string): Promise<DirEntry[]> {
    return this.#inner.readDir(path);
  }
  /** Forwards. */
  remove(path: string, options?: { readonly recursive?: boolean }): Promise<void> {
    return this.#inner.remove(path, options);
  }
  /** One environment. */
  forSession(_sessionId: string): Executor {
    return this;
  }
  /** Forwards. */
  open(resume?: ExecutorRecord): Promise<ExecutorRecord> {
    return this.#inner.open(resume);
  }
  /** Forwards. */
  detach(): Promise<void> {
    return this.#inner.detach();
  }
  /** Forwards. */
  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

/** The host, unsandboxed. */
const LOCAL_CASE: ExecutorCase = {
  name: "local",
  async setup() {
    const ws = await hostWorkspace();
    return { executor: new LocalExecutor(), workspace: ws.path, close: ws.remove };
  },
};

/** Bubblewrap, `workspace-write` (probed: fails, never skips, where bwrap cannot run). */
const BWRAP_CASE: ExecutorCase = {
  name: "bwrap",
  async setup() {
    const ws = await hostWorkspace();
    const executor = await createSandboxExecutor({ workspace: ws.path });
    return { executor, workspace: ws.path, close: ws.remove };
  },
};

/** The local executor seen as a remote one (see {@linkcode FilesOnlyExecutor}). */
const FILES_ONLY_CASE: ExecutorCase = {
  name: "files-only",
  async setup() {
    const ws = await hostWorkspace();
    return {
      executor: new FilesOnlyExecutor(new LocalExecutor()),
      workspace: ws.path,
      close: ws.remove,
    };
  },
};

/**
 * The Deno Sandbox executor on the loopback stand-in (the unmodified SDK over its wire; commands
 * run in a bubblewrap box). The workspace sits at the same absolute path in the sandbox.
 */
const DENO_SANDBOX_CASE: ExecutorCase = {
  name: "deno-sandbox",
  async setup() {
    const standIn = await startSandboxStandIn();
    const ws = await hostWorkspace();
    const executor = denoSandboxExecutor({
      workspace: ws.path,
      allowNet: [],
      endpoint: standIn.endpoint,
      token: standIn.token,
      timeout: "10m",
    });
    return {
      executor,
      workspace: ws.path,
      async close() {
        await executor.destroy().catch(() => {});
        await standIn.close();
        await ws.remove();
      },
    };
  },
};

/** Every case; the suites run over each. */
export const EXECUTOR_CASES: readonly ExecutorCase[] = [
  LOCAL_CASE,
  BWRAP_CASE,
  FILES_ONLY_CASE,
  DENO_SANDBOX_CASE,
];
