/**
 * Tool outcomes: the one place they are built (`Error: <message>` failures, successes, the
 * cancellation outcomes) and normalized from what a body or a wrapper returned.
 *
 * @module
 */
import { describeValue, errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import { JsonSnapshotError, type JsonValue, snapshotJson } from "../core/json.ts";
import type { ContentBlock } from "./content.ts";

type Contexts = readonly (readonly ContentBlock[])[];

/** Error codes a result may carry. */
export type ToolErrorCode =
  | "INVALID_ARGS"
  | "UNKNOWN_TOOL"
  | "ABORTED_BEFORE_DISPATCH"
  | "ABORTED"
  | "TOOL_TIMEOUT"
  | "DENIED"
  | "TOOL_ERROR"
  | "CODE_RUN_FAILED"
  | "MCP_SERVER_EXITED"
  | "MCP_TOOL_ERROR"
  // Any other HarnessError code a tool throws passes through unchanged.
  | (string & Record<never, never>);

/** The frozen, normalized outcome of one execution. */
export interface ToolOutcome {
  /** True for failures. */
  readonly isError: boolean;
  /** Model-facing content (failures: exactly one `Error: <message>` text block). */
  readonly content: readonly ContentBlock[];
  /** The tool's presentation payload. */
  readonly meta?: JsonValue;
  /** For failures: the message and, when known, a stable code. */
  readonly error?: {
    readonly message: string;
    readonly code?: ToolErrorCode;
    readonly name?: string;
  };
  /** Context the loop appends after this result (tool-deferred first, then post-execute's). */
  readonly additionalContexts?: readonly (readonly ContentBlock[])[];
}

/** Message of `ABORTED_BEFORE_DISPATCH`. */
export const ABORTED_BEFORE_DISPATCH_MESSAGE = "tool call aborted before dispatch";
/** Message of `ABORTED`. */
export const ABORTED_MESSAGE = "tool call aborted";
/** Message of arguments that are not lossless JSON (`INVALID_ARGS`, docs/contracts.md §2 step 1). */
export const NON_JSON_ARGS_MESSAGE =
  "tool execution arguments must be losslessly JSON-serializable";

/**
 * The `INVALID_ARGS` outcome of arguments that could not be snapshotted: the contract text, then
 * the offending path and the value's kind, so the model can fix them.
 */
export function invalidArgsOutcome(error: unknown): ToolOutcome {
  const problem = error instanceof JsonSnapshotError
    ? error.describe("arguments")
    : `the arguments could not be read (${errorMessage(error).slice(0, 200)})`;
  return errorOutcome(`${NON_JSON_ARGS_MESSAGE}: ${problem}`, { code: "INVALID_ARGS" });
}

/** Options of {@linkcode errorOutcome}. */
export interface ErrorOutcomeOptions {
  readonly code?: ToolErrorCode | undefined;
  readonly name?: string | undefined;
  readonly additionalContexts?: Contexts | undefined;
}

/** A frozen failure: exactly one `Error: <message>` text block. */
export function errorOutcome(message: string, options: ErrorOutcomeOptions = {}): ToolOutcome {
  const { code, name, additionalContexts } = options;
  const error: { message: string; code?: ToolErrorCode; name?: string } = { message };
  if (code !== undefined) error.code = code;
  if (name !== undefined) error.name = name;
  const outcome: {
    isError: true;
    content: readonly ContentBlock[];
    error: NonNullable<ToolOutcome["error"]>;
    additionalContexts?: Contexts;
  } = {
    isError: true,
    content: Object.freeze([Object.freeze({ type: "text", text: `Error: ${message}` } as const)]),
    error: Object.freeze(error),
  };
  if (additionalContexts !== undefined && additionalContexts.length > 0) {
    outcome.additionalContexts = Object.freeze(additionalContexts.slice());
  }
  return Object.freeze(outcome);
}

/** The outcome of a thrown value: message, HarnessError code and error name are kept. */
export function thrownOutcome(thrown: unknown, additionalContexts?: Contexts): ToolOutcome {
  // HarnessError codes beyond the named ones (for example FS_NOT_OBSERVED) are kept as they are.
  let code: ToolErrorCode | undefined;
  let name: string | undefined;
  try {
    if (thrown instanceof HarnessError && typeof thrown.code === "string") code = thrown.code;
    if (thrown instanceof Error && typeof thrown.name === "string") name = thrown.name;
  } catch {
    // A hostile error object keeps only its message.
  }
  return errorOutcome(errorMessage(thrown), { code, name, additionalContexts });
}

const BEFORE_DISPATCH: ToolOutcome = errorOutcome(ABORTED_BEFORE_DISPATCH_MESSAGE, {
  code: "ABORTED_BEFORE_DISPATCH",
  name: "AbortError",
});

/** `ABORTED_BEFORE_DISPATCH`: one frozen outcome, so a pipeline can tell it by identity. */
export function abortedBeforeDispatch(): ToolOutcome {
  return BEFORE_DISPATCH;
}

/** `ABORTED` (deferred contexts are kept). */
export function aborted(additionalContexts?: Contexts): ToolOutcome {
  return errorOutcome(ABORTED_MESSAGE, { code: "ABORTED", name: "AbortError", additionalContexts });
}

/** A frozen success. */
export function successOutcome(
  content: readonly ContentBlock[],
  meta: JsonValue | undefined,
  additionalContexts: Contexts | undefined,
): ToolOutcome {
  const outcome: {
    isError: false;
    content: readonly ContentBlock[];
    meta?: JsonValue;
    additionalContexts?: Contexts;
  } = { isError: false, content };
  if (meta !== undefined) outcome.meta = meta;
  if (additionalContexts !== undefined && additionalContexts.length > 0) {
    outcome.additionalContexts = Object.freeze(additionalContexts.slice());
  }
  return Object.freeze(outcome);
}

/**
 * Snapshots and checks content blocks.
 *
 * @throws {TypeError} When `value` is not an array of valid, lossless-JSON content blocks.
 */
export function materializeContent(value: unknown, label: string): readonly ContentBlock[] {
  if (!Array.isArray(value)) {
    throw new TypeError(
      `${label}: expected an array of content blocks, received ${describeValue(value)}`,
    );
  }
  let copy: unknown;
  try {
    copy = snapshotJson(value);
  } catch (error) {
    throw new TypeError(`${label}: ${errorMessage(error)}`);
  }
  assertContentBlocks(copy, label);
  return copy;
}

/** Checks every block of a snapshotted array (the snapshot made them JSON already). */
function assertContentBlocks(
  value: unknown,
  label: string,
): asserts value is readonly ContentBlock[] {
  const blocks = value as readonly JsonValue[];
  for (let i = 0; i < blocks.length; i++) {
    const problem = blockProblem(blocks[i]!);
    if (problem !== undefined) throw new TypeError(`${label}: block ${i} ${problem}`);
  }
}

/** Snapshots and checks a list of contexts (each a content-block array). */
export function materializeContexts(value: unknown, label: string): Contexts {
  if (!Array.isArray(value)) {
    throw new TypeError(
      `${label}: expected an array of content-block arrays, received ${describeValue(value)}`,
    );
  }
  return Object.freeze(
    value.map((blocks, i) => materializeContent(blocks, `${label} (context ${i})`)),
  );
}

/**
 * Normalizes what a body returned: `ContentBlock[]` or `{ content, meta }`. Throws a TypeError
 * with a model-readable message for malformed or non-JSON results.
 */
export function normalizeReturn(
  tool: string,
  value: unknown,
  additionalContexts: Contexts | undefined,
): ToolOutcome {
  let content: unknown = value;
  let meta: unknown;
  if (!Array.isArray(value)) {
    if (
      typeof value !== "object" || value === null || !Array.isArray(
        content = (value as { content?: unknown }).content,
      )
    ) {
      throw new TypeError(
        `tool "${tool}" returned a malformed result: expected an array of content blocks or { content, meta }, received ${
          describeValue(value)
        }`,
      );
    }
    if (Object.hasOwn(value, "isError")) {
      // ExecuteReturn has no isError: silently dropping it would turn an intended failure into a
      // success (TypeScript does not flag the extra key on an inferred return type).
      throw new TypeError(
        `tool "${tool}" returned a malformed result: { content, meta } has no isError field, received isError: ${
          describeValue((value as { isError?: unknown }).isError)
        }; throw an Error to fail the call, or report a domain failure in the content text`,
      );
    }
    meta = (value as { meta?: unknown }).meta;
  }
  const blocks = materializeContent(content, `tool "${tool}" returned invalid content`);
  let metaCopy: JsonValue | undefined;
  if (meta !== undefined) {
    try {
      metaCopy = snapshotJson(meta);
    } catch (error) {
      throw new TypeError(`tool "${tool}" returned invalid meta: ${errorMessage(error)}`);
    }
  }
  return successOutcome(blocks, metaCopy, additionalContexts);
}

/** Re-normalizes an outcome authored by an around wrapper. */
export function normalizeAuthored(value: unknown): ToolOutcome {
  if (typeof value !== "object" || value === null) {
    throw new TypeError(
      `a tools/execute wrapper returned ${describeValue(value)}: expected a tool outcome`,
    );
  }
  const v = value as Record<string, unknown>;
  if (typeof v.isError !== "boolean") {
    throw new TypeError(`a tools/execute wrapper returned an outcome without a boolean isError`);
  }
  const content = materializeContent(v.content, "a tools/execute wrapper returned invalid content");
  const contexts = v.additionalContexts === undefined ? undefined : materializeContexts(
    v.additionalContexts,
    "a tools/execute wrapper returned invalid additionalContexts",
  );
  let meta: JsonValue | undefined;
  if (v.meta !== undefined) meta = snapshotJson(v.meta);
  if (!v.isError) return successOutcome(content, meta, contexts);
  const error = (v.error ?? {}) as { message?: unknown; code?: unknown; name?: unknown };
  const message = typeof error.message === "string" ? error.message : "tool failed";
  const outcome = {
    isError: true as const,
    content,
    error: Object.freeze({
      message,
      ...(typeof error.code === "string" ? { code: error.code } : {}),
      ...(typeof error.name === "string" ? { name: error.name } : {}),
    }),
    ...(meta === undefined ? {} : { meta }),
    ...(contexts === undefined || contexts.length === 0 ? {} : { additionalContexts: contexts }),
  };
  return Object.freeze(outcome);
}

/** Joins block-feedback text; non-text blocks become `[<type> content]`. */
export function feedbackText(feedback: readonly ContentBlock[]): string {
  return feedback.map((block) => block.type === "text" ? block.text : `[${block.type} content]`)
    .join("\n");
}

function blockProblem(block: JsonValue): string | undefined {
  if (typeof block !== "object" || block === null || Array.isArray(block)) {
    return `must be a content block object, received ${describeValue(block)}`;
  }
  const b = block as Readonly<Record<string, JsonValue>>;
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? undefined : "is a text block without a string text";
    case "image":
      return typeof b.mimeType === "string" && typeof b.data === "string"
        ? undefined
        : "is an image block without string mimeType and data";
    case "resource":
      if (typeof b.uri !== "string") return "is a resource block without a string uri";
      if (b.mimeType !== undefined && typeof b.mimeType !== "string") {
        return "is a resource block with a non-string mimeType";
      }
      if (b.text !== undefined && typeof b.text !== "string") {
        return "is a resource block with a non-string text";
      }
      return undefined;
    default:
      return `has an unknown type ${describeValue(b.type)}: expected "text", "image" or "resource"`;
  }
}
