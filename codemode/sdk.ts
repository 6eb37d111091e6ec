/**
 * The Code Mode SDK: TypeScript declarations of every visible tool, generated from their JSON
 * Schema, plus the usage instructions that go into the system prompt.
 *
 * @module
 */
import {
  argsOptional,
  docLines,
  jsdoc,
  propertyKey,
  renderSchema,
  renderState,
} from "./_schema_ts.ts";
import { CODE_RUNNER_NAME } from "./tool_mode.ts";

/** What SDK generation reads of a tool (a `ToolDefinition` or `ToolSchema` fits). */
export interface SdkTool {
  /** The tool name (`tools.<name>`). */
  readonly name: string;
  /** The tool description (JSDoc above the binding). */
  readonly description?: string;
  /** The JSON Schema of the arguments. */
  readonly parameters?: unknown;
}

const PRELUDE =
  `type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Thrown by a failed tool call; \`message\` is the tool's error text. */
declare class ToolCallError extends Error {
  readonly name: "ToolCallError";
  /** The tool that failed. */
  readonly toolName: string;
}
`;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function readTool(
  tool: unknown,
): { name: string; description: unknown; parameters: unknown } | undefined {
  try {
    const { name, description, parameters } = tool as SdkTool;
    if (typeof name !== "string" || name === CODE_RUNNER_NAME) return undefined;
    return { name, description, parameters };
  } catch {
    return undefined;
  }
}

function renderBinding(tool: { name: string; description: unknown; parameters: unknown }): string {
  const lines = typeof tool.description === "string"
    ? docLines({ description: tool.description })
    : [];
  let signature: string;
  try {
    const args = renderSchema(tool.parameters, "  ", renderState()).text;
    const optional = args !== "unknown" && argsOptional(tool.parameters);
    signature = `(args${optional ? "?" : ""}: ${args})`;
  } catch {
    signature = "(args: unknown)";
  }
  return `${jsdoc(lines, "  ")}  ${propertyKey(tool.name)}${signature}: Promise<string>;\n`;
}

/**
 * Generates the TypeScript declarations of the `tools` object a program sees: one binding per
 * tool, sorted by name in code-unit order, so an unchanged tool set gives byte-identical text.
 * Tool and parameter descriptions become JSDoc; enum/const become literal unions; optional
 * parameters get `?`; open objects get `& Record<string, JsonValue>`; anything unsupported or
 * malformed becomes `unknown`. `run_code` and entries without a string name are left out.
 * Never throws.
 *
 * @param tools The visible tools (for example `ctx.tools.list()`).
 * @returns The declarations.
 *
 * @example Usage
 * ```ts
 * import { generateSdk } from "./sdk.ts";
 * import { ok } from "node:assert/strict";
 * const sdk = generateSdk([{
 *   name: "read",
 *   description: "Reads a file",
 *   parameters: {
 *     type: "object",
 *     properties: { path: { type: "string" }, mode: { enum: ["text", "bytes"] } },
 *     required: ["path"],
 *     additionalProperties: false,
 *   },
 * }]);
 * ok(sdk.includes('read(args: {\n    path: string;\n    mode?: "text" | "bytes";\n  }): Promise<string>;'));
 * ```
 */
export function generateSdk(tools: readonly SdkTool[]): string {
  let entries: { name: string; description: unknown; parameters: unknown }[] = [];
  try {
    for (const tool of Array.from(tools)) {
      const entry = readTool(tool);
      if (entry) entries.push(entry);
    }
  } catch {
    entries = [];
  }
  entries.sort((a, b) => compare(a.name, b.name));
  return `${PRELUDE}\ndeclare const tools: {\n${entries.map(renderBinding).join("")}};\n`;
}

/** The usage instructions that precede the SDK in the system prompt. */
export const CODE_MODE_INSTRUCTIONS: string =
  `You call tools by writing a TypeScript program and running it with the \`run_code\` tool.
- \`code\` is the body of an async function: use \`await\`, \`return\` a value, and \`console.log\` progress.
- \`await tools.<name>(args)\` runs that tool (with the usual permissions) and resolves to its text output.
  A failed call throws \`ToolCallError\` (\`toolName\`, \`message\`); catch it to recover.
- Run independent calls concurrently with \`Promise.all\`. Arguments must be plain JSON (no \`undefined\`).
- The program itself has no file, network, environment or subprocess access: go through the tools.
- The result is the logged lines, then the returned value (strings as-is, other values as JSON).
  Keep it small: filter and summarise inside the program.
- Give \`description\` a short title (5-10 words) for what the program does.`;

/**
 * The Code Mode system-prompt section: instructions, then the SDK in a `ts` fence.
 *
 * @param tools The visible tools.
 * @returns The section text (deterministic for an unchanged tool set).
 *
 * @example Usage
 * ```ts
 * import { codeModePrompt } from "./sdk.ts";
 * import { ok } from "node:assert/strict";
 * const text = codeModePrompt([{ name: "echo", description: "Echoes", parameters: { type: "object" } }]);
 * ok(text.includes("\x60\x60\x60ts\n") && text.includes("echo(args?: Record<string, JsonValue>): Promise<string>;"));
 * ```
 */
export function codeModePrompt(tools: readonly SdkTool[]): string {
  return `# Code Mode\n\n${CODE_MODE_INSTRUCTIONS}\n\n\`\`\`ts\n${generateSdk(tools)}\`\`\`\n`;
}
