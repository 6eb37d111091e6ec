import { equal, ok } from "node:assert/strict";
import { codeModePrompt, generateSdk, type SdkTool } from "../../codemode/sdk.ts";
import { tempDir } from "../_helpers.ts";

const TOOLS: SdkTool[] = [
  {
    name: "zeta-tool",
    description: "Odd name.\nCloses a comment */ here",
    parameters: {
      type: "object",
      properties: {
        "a b": { type: "string", description: "quoted */ key" },
        count: { type: ["integer", "null"], minimum: 1, default: 3 },
        pick: { oneOf: [{ const: "x", description: "the x" }, { const: 2 }] },
        list: { type: "array", items: { enum: ["p", "q"] } },
        nested: {
          type: "object",
          properties: { deep: { type: "boolean" } },
          required: ["deep"],
          additionalProperties: false,
        },
        ref: { $ref: "#/definitions/x" },
        pattern: { type: "object", patternProperties: { "^a": { type: "string" } } },
        all: { allOf: [{ type: "string" }] },
      },
      required: ["a b"],
    },
  },
  {
    name: "alpha",
    description: "First tool",
    parameters: {
      type: "object",
      properties: {
        mode: { enum: ["a", "b"] },
        any: {},
        map: { type: "object", additionalProperties: { type: "number" } },
        closed: { type: "object", additionalProperties: false },
      },
      additionalProperties: false,
    },
  },
  { name: "run_code", description: "never listed", parameters: {} },
  { name: "broken", parameters: "not a schema" },
];

const EXPECTED =
  `type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Thrown by a failed tool call; \`message\` is the tool's error text. */
declare class ToolCallError extends Error {
  readonly name: "ToolCallError";
  /** The tool that failed. */
  readonly toolName: string;
}

declare const tools: {
  /** First tool */
  alpha(args?: {
    mode?: "a" | "b";
    any?: JsonValue;
    map?: Record<string, number>;
    closed?: Record<string, never>;
  }): Promise<string>;
  broken(args: unknown): Promise<string>;
  /**
   * Odd name.
   * Closes a comment *\\/ here
   */
  "zeta-tool"(args: {
    /** quoted *\\/ key */
    "a b": string;
    /**
     * @default 3
     * @minimum 1
     */
    count?: number | null;
    /** - "x": the x */
    pick?: "x" | 2;
    list?: ("p" | "q")[];
    nested?: {
      deep: boolean;
    };
    ref?: unknown;
    pattern?: unknown;
    all?: unknown;
  } & Record<string, JsonValue>): Promise<string>;
};
`;

Deno.test("generateSdk() renders a sorted, documented snapshot", () => {
  equal(generateSdk(TOOLS), EXPECTED);
});

Deno.test("generateSdk() is byte-identical for the same tool set in any order", () => {
  const shuffled = [TOOLS[2]!, TOOLS[0]!, TOOLS[3]!, TOOLS[1]!];
  equal(generateSdk(shuffled), generateSdk(TOOLS));
  equal(codeModePrompt(shuffled), codeModePrompt(TOOLS));
});

Deno.test("generateSdk() sorts by code-unit order, not locale order", () => {
  const sdk = generateSdk([
    { name: "b", parameters: {} },
    { name: "B", parameters: {} },
    { name: "a", parameters: {} },
  ]);
  ok(sdk.indexOf("  B(") < sdk.indexOf("  a(") && sdk.indexOf("  a(") < sdk.indexOf("  b("));
});

Deno.test("generateSdk() degrades cycles and hostile inputs without throwing", () => {
  const cyclic: Record<string, unknown> = { type: "object", properties: {} };
  (cyclic.properties as Record<string, unknown>).self = cyclic;
  const hostile = new Proxy({}, {
    ownKeys() {
      throw new Error("boom");
    },
  });
  const throwingName = {
    get name(): string {
      throw new Error("boom");
    },
  };
  const sdk = generateSdk([
    { name: "cyc", parameters: cyclic },
    { name: "hostile", parameters: hostile },
    throwingName as SdkTool,
    null as unknown as SdkTool,
    { name: 42 } as unknown as SdkTool,
  ]);
  ok(
    sdk.includes(
      "  cyc(args?: {\n    self?: unknown;\n  } & Record<string, JsonValue>): Promise<string>;",
    ),
  );
  ok(sdk.includes("  hostile(args: unknown): Promise<string>;"));
});

/** A small deterministic PRNG (mulberry32) so fuzz failures reproduce. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  NaN,
  "string",
  "*/",
  "a b",
  "\u2028",
  "__proto__",
  [],
  {},
  "object",
  "array",
  "integer",
  ["string", "null"],
  undefined,
];
const KEYS = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "oneOf",
  "anyOf",
  "allOf",
  "$ref",
  "description",
  "default",
  "format",
  "patternProperties",
  "weird key */",
];

function fuzzValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (depth > 5 || roll < 0.35) return ATOMS[Math.floor(next() * ATOMS.length)];
  if (roll < 0.5) {
    return Array.from({ length: Math.floor(next() * 4) }, () => fuzzValue(next, depth + 1));
  }
  const out: Record<string, unknown> = {};
  const count = Math.floor(next() * 5);
  for (let i = 0; i < count; i++) {
    out[KEYS[Math.floor(next() * KEYS.length)]!] = fuzzValue(next, depth + 1);
  }
  if (next() < 0.5) out.type = "object";
  return out;
}

Deno.test("generateSdk() never throws and emits valid TypeScript for fuzzed schemas", async () => {
  const next = random(7);
  const tools: SdkTool[] = [];
  for (let i = 0; i < 300; i++) {
    const tool = {
      name: `t${i}`,
      description: String(fuzzValue(next, 4)),
      parameters: fuzzValue(next, 0),
    };
    generateSdk([tool]);
    tools.push(tool);
  }
  await using dir = await tempDir();
  const file = `${dir.path}/sdk.d.ts`;
  await Deno.writeTextFile(file, `${generateSdk(tools)}export {};\n`);
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--no-config", "--quiet", file],
    stdout: "null",
    stderr: "piped",
  }).output();
  equal(code, 0, new TextDecoder().decode(stderr));
});

Deno.test("codeModePrompt() puts instructions before the fenced SDK", () => {
  const text = codeModePrompt(TOOLS);
  ok(text.startsWith("# Code Mode\n\nYou call tools by writing a TypeScript program"));
  ok(text.endsWith(`\`\`\`ts\n${EXPECTED}\`\`\`\n`));
});
