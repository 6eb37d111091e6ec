/**
 * The core of dsh: the plugin {@linkcode Context} (fibers, effects, services, events), lossless
 * JSON, the logger, errors and hot reload.
 *
 * @example Usage
 * ```ts
 * import { Context, snapshotJson } from "./mod.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = new Context();
 * const fiber = ctx.plugin({ name: "hello", apply(ctx) { ctx.on("ping", () => {}); } });
 * equal(fiber.state, "active");
 * equal(Object.isFrozen(snapshotJson({ a: 1 })), true);
 * await ctx.fiber.dispose();
 * ```
 *
 * @module
 */
export { BIND_SERVICE, Context } from "./context.ts";
export { compose } from "./compose.ts";
export type { Middleware } from "./compose.ts";
export type { ContextOptions, Listener } from "./context.ts";
export { Fiber } from "./fiber.ts";
export type { FiberState } from "./fiber.ts";
export type { Disposer } from "./_runtime.ts";
export type { Plugin, PluginFunction } from "./context.ts";
export { HarnessError } from "./errors.ts";
export { concatBytes } from "./bytes.ts";
export { LineSplitter, LineTooLongError, readLines } from "./lines.ts";
export type { LineSplitterOptions, OversizedLine, ReadLinesOptions } from "./lines.ts";
export { describeValue, errorMessage, UNPRINTABLE_THROWN_VALUE } from "./error_message.ts";
export { isJsonSnapshot, isLosslessJson, JsonSnapshotError, snapshotJson } from "./json.ts";
export type {
  JsonArray,
  JsonObject,
  JsonPrimitive,
  JsonSnapshotErrorOptions,
  JsonValue,
} from "./json.ts";
export { createLogger, stderrSink } from "./logger.ts";
export type { CreateLoggerOptions, Logger, LogLevel, LogRecord, LogSink } from "./logger.ts";
export { reloadPlugin } from "./reload.ts";
export { hasHiddenText, safeText } from "./safe_text.ts";
export type { SafeTextOptions } from "./safe_text.ts";
export { assertRunPermissions, netHost, permissionHint } from "./permission_hint.ts";
export type { ReloadPluginOptions } from "./reload.ts";
export {
  checkEnvPolicy,
  childEnv,
  CORE_ENV_VARS,
  looksSecret,
  NEVER_PASSED_ENV_VARS,
  scrubEnv,
  SECRET_NAME_PARTS,
} from "./env_policy.ts";
export type { EnvInherit, EnvPolicy } from "./env_policy.ts";
