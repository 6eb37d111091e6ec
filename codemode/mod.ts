/**
 * Code Mode: the model writes one TypeScript program that calls tools as
 * `await tools.<name>(args)`, and `run_code` runs it in a sandbox whose only authority is the
 * bridge back into the registry pipeline (docs/contracts.md §9).
 *
 * - {@linkcode codeModePlugin}: registers `run_code` and adds the SDK to the system prompt.
 * - {@linkcode ToolMode}, {@linkcode codeModeListing}, {@linkcode codeModeRoute},
 *   {@linkcode CODE_RUNNER_NAME}: what each mode lists, the direct-call denial, the reserved name.
 * - {@linkcode createRunCodeTool}, {@linkcode formatRunOutput}: the tool and its result text.
 * - {@linkcode generateSdk}, {@linkcode codeModePrompt}: declarations of the visible tools.
 * - {@linkcode CodeRuntime} and {@linkcode subprocessRuntime}: the executor seam and its default.
 * - {@linkcode CodeRunFailedError}: `code run failed (<kind>): <message>`.
 *
 * **Executors.** The default {@linkcode subprocessRuntime} starts a fresh `deno run` per program
 * with no `--allow-*` flag, `--no-prompt --no-remote --no-npm --no-config --no-lock
 * --cached-only --no-code-cache`, `--jitless` and a V8 heap cap, an empty environment and cwd
 * `/`; its stdio is the private JSON-lines bridge, so a program can neither reach the host's
 * stdin/stdout nor kill the host by exhausting memory. Every realm of the process (Workers
 * included) shares one RLIMIT_DATA cap ({@linkcode sandboxMemoryMb}), a private `DENO_DIR` that
 * can hold no origin storage and is deleted after the run, and a `data:` main module, so no
 * storage persists and no host path shows (SECURITY.md, "Code Mode"). The host needs
 * `--allow-run=sh`. Host-side limits: wall-clock deadline then SIGKILL, heap cap, calls per run,
 * calls in flight, bytes per bridge frame and bytes of output. Two alternatives fit the same
 * {@linkcode CodeRuntime} interface:
 * - *Worker fast mode* (not shipped): a Web Worker with `deno: { permissions: "none" }` (the host
 *   must run with `--unstable-worker-options` and `--no-npm`, since a worker's `import("npm:…")`
 *   is fetched by the host). It starts about as fast but shares the host's stdio and its heap: an
 *   out-of-memory program kills the host. Use it only for hosts that do not speak a protocol on
 *   stdio and accept that risk; delete `caches`/`localStorage` and replace `Deno.stdin/stdout` first.
 * - *OS sandbox*: the same subprocess protocol inside bubblewrap (`bwrap --unshare-all
 *   --die-with-parent --ro-bind <deno> … --tmpfs /`) or nsjail with cgroup memory/CPU/pids limits
 *   and seccomp: pass `execPath` as a wrapper script to {@linkcode subprocessRuntime}. Deno
 *   permissions are a policy layer, not a hard boundary; a runtime bug beats them, the OS sandbox
 *   does not depend on them.
 *
 * @example Usage
 * ```ts
 * import { generateSdk } from "./mod.ts";
 * import { ok } from "node:assert/strict";
 * ok(generateSdk([{ name: "ls", parameters: { type: "object" } }]).includes("ls(args?:"));
 * ```
 *
 * @module
 */
export { CodeRunFailedError } from "./code_run_failed_error.ts";
export { CODE_MODE_PROMPT_HOOK, codeModePlugin, codeModeRoute } from "./plugin.ts";
export type { CodeModeConfig } from "./plugin.ts";
export { CODE_RUNNER_NAME, codeModeListing } from "./tool_mode.ts";
export type { ToolMode } from "./tool_mode.ts";
export { createRunCodeTool, EMPTY_RUN_TEXT, formatRunOutput } from "./run_code.ts";
export type { RunCodeArgs, RunCodeOptions } from "./run_code.ts";
export { DEFAULT_CODE_RUN_LIMITS, resolveCodeRunLimits } from "./runtime.ts";
export type {
  CodeRunFailureKind,
  CodeRunLimits,
  CodeRunOptions,
  CodeRunResult,
  CodeRuntime,
  CodeToolCall,
} from "./runtime.ts";
export { CODE_MODE_INSTRUCTIONS, codeModePrompt, generateSdk } from "./sdk.ts";
export type { SdkTool } from "./sdk.ts";
export { sandboxFlags, sandboxMemoryMb, subprocessRuntime } from "./subprocess_runtime.ts";
export type { SubprocessRuntimeOptions } from "./subprocess_runtime.ts";
