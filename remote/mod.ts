/**
 * Tools that run elsewhere: executors whose environment is a remote sandbox (see
 * docs/contracts.md §11 and the README's "Running tools remotely").
 *
 * @example Usage
 * ```ts ignore
 * import { denoSandboxExecutor } from "@dsh/harness/remote";
 * ```
 *
 * @module
 */
export {};
