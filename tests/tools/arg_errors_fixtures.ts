/**
 * Ten realistic tools, each in the schema DSL (with its own range checks via `checkRange` /
 * `checkLength`) and in zod 4, and a set of synthetic argument mistakes of the kinds in issue 21.
 * Shared by the CI suite (arg_errors_suite_test.ts) and `deno task bench:errors`.
 */
import { z } from "zod";
import { checkLength, checkRange } from "../../tools/arg_error.ts";
import type { ParametersSpec } from "../../tools/schema.ts";

/** One tool in both forms. */
export interface SuiteTool {
  readonly name: string;
  readonly dsl: ParametersSpec;
  /** The tool's own checks (ranges, lengths), run in `execute` of the DSL form. */
  readonly checks: (args: Record<string, unknown>) => void;
  readonly zod: z.ZodType;
  /** A valid call. */
  readonly valid: Record<string, unknown>;
}

const CHANNELS = [
  "general",
  "random",
  "dev",
  "ops",
  "alerts",
  "design",
  "sales",
  "support",
  "hr",
  "legal",
  "finance",
  "release",
] as const;

/** The tools. */
export const TOOLS: readonly SuiteTool[] = [
  {
    name: "read_file",
    dsl: {
      file_path: { type: "string", required: true },
      offset: { type: "integer" },
      limit: { type: "integer" },
    },
    checks: (a) => {
      checkRange(a, "offset", { min: 1, integer: true });
      checkRange(a, "limit", { min: 1, max: 2000, integer: true });
    },
    zod: z.strictObject({
      file_path: z.string(),
      offset: z.number().int().min(1).optional(),
      limit: z.number().int().min(1).max(2000).optional(),
    }),
    valid: { file_path: "/src/a.ts", offset: 10, limit: 50 },
  },
  {
    name: "search",
    dsl: {
      query: { type: "string", required: true },
      mode: { type: "string", enum: ["literal", "regex", "fuzzy"] },
      max_results: { type: "integer" },
      case_sensitive: { type: "boolean" },
    },
    checks: (a) => checkRange(a, "max_results", { min: 1, max: 100, integer: true }),
    zod: z.strictObject({
      query: z.string(),
      mode: z.enum(["literal", "regex", "fuzzy"]).optional(),
      max_results: z.number().int().min(1).max(100).optional(),
      case_sensitive: z.boolean().optional(),
    }),
    valid: { query: "TODO", mode: "literal", max_results: 20, case_sensitive: false },
  },
  {
    name: "create_order",
    dsl: {
      customer_id: { type: "string", required: true },
      items: {
        type: "array",
        required: true,
        items: {
          type: "object",
          properties: {
            sku: { type: "string", required: true },
            qty: { type: "integer", required: true },
          },
        },
      },
      shipping: {
        type: "object",
        required: true,
        properties: {
          method: { type: "string", enum: ["ground", "air", "express"], required: true },
          address: { type: "string", required: true },
        },
      },
    },
    checks: (a) => {
      const items = a.items as unknown[];
      for (let i = 0; i < items.length; i++) {
        checkRange(a, `items[${i}].qty`, { min: 1, max: 99, integer: true });
      }
    },
    zod: z.strictObject({
      customer_id: z.string(),
      items: z.array(z.strictObject({ sku: z.string(), qty: z.number().int().min(1).max(99) })),
      shipping: z.strictObject({
        method: z.enum(["ground", "air", "express"]),
        address: z.string(),
      }),
    }),
    valid: {
      customer_id: "c-17",
      items: [{ sku: "A1", qty: 1 }, { sku: "B2", qty: 2 }, { sku: "C3", qty: 3 }],
      shipping: { method: "ground", address: "1 Main St" },
    },
  },
  {
    name: "set_timer",
    dsl: {
      label: { type: "string", required: true },
      seconds: { type: "integer", required: true },
      repeat: { type: "boolean" },
    },
    checks: (a) => checkRange(a, "seconds", { min: 1, max: 86400, integer: true }),
    zod: z.strictObject({
      label: z.string(),
      seconds: z.number().int().min(1).max(86400),
      repeat: z.boolean().optional(),
    }),
    valid: { label: "tea", seconds: 180, repeat: false },
  },
  {
    name: "http_request",
    dsl: {
      url: { type: "string", required: true },
      method: { type: "string", enum: ["GET", "POST", "PUT", "DELETE", "PATCH"], required: true },
      headers: { type: "object", additionalProperties: true },
      timeout_ms: { type: "integer" },
    },
    checks: (a) => checkRange(a, "timeout_ms", { min: 100, max: 60000, integer: true }),
    zod: z.strictObject({
      url: z.string(),
      method: z.enum(["GET", "POST", "PUT", "DELETE", "PATCH"]),
      headers: z.record(z.string(), z.string()).optional(),
      timeout_ms: z.number().int().min(100).max(60000).optional(),
    }),
    valid: {
      url: "https://example.com",
      method: "GET",
      headers: { accept: "x" },
      timeout_ms: 5000,
    },
  },
  {
    name: "edit_file",
    dsl: {
      file_path: { type: "string", required: true },
      old_string: { type: "string", required: true },
      new_string: { type: "string", required: true },
      replace_all: { type: "boolean" },
    },
    checks: () => {},
    zod: z.strictObject({
      file_path: z.string(),
      old_string: z.string(),
      new_string: z.string(),
      replace_all: z.boolean().optional(),
    }),
    valid: { file_path: "/a.ts", old_string: "foo", new_string: "bar", replace_all: true },
  },
  {
    name: "query_db",
    dsl: {
      sql: { type: "string", required: true },
      params: {
        type: "array",
        items: { oneOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
      },
      limit: { type: "integer" },
    },
    checks: (a) => checkRange(a, "limit", { min: 1, max: 1000, integer: true }),
    zod: z.strictObject({
      sql: z.string(),
      params: z.array(z.union([z.string(), z.number(), z.null()])).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    }),
    valid: { sql: "select 1", params: ["a", 2, null], limit: 10 },
  },
  {
    name: "send_message",
    dsl: {
      channel: { type: "string", enum: [...CHANNELS], required: true },
      text: { type: "string", required: true },
      priority: { type: "string", enum: ["low", "normal", "high"] },
    },
    checks: (a) => checkLength(a, "text", { min: 1, max: 500 }),
    zod: z.strictObject({
      channel: z.enum(CHANNELS),
      text: z.string().min(1).max(500),
      priority: z.enum(["low", "normal", "high"]).optional(),
    }),
    valid: { channel: "dev", text: "deploy done", priority: "normal" },
  },
  {
    name: "resize_image",
    dsl: {
      path: { type: "string", required: true },
      width: { type: "integer", required: true },
      height: { type: "integer", required: true },
      format: { type: "string", enum: ["png", "jpeg", "webp"] },
    },
    checks: (a) => {
      checkRange(a, "width", { min: 1, max: 8192, integer: true });
      checkRange(a, "height", { min: 1, max: 8192, integer: true });
    },
    zod: z.strictObject({
      path: z.string(),
      width: z.number().int().min(1).max(8192),
      height: z.number().int().min(1).max(8192),
      format: z.enum(["png", "jpeg", "webp"]).optional(),
    }),
    valid: { path: "/img.png", width: 640, height: 480, format: "png" },
  },
  {
    name: "schedule_job",
    dsl: {
      name: { type: "string", required: true },
      job: {
        required: true,
        oneOf: [
          {
            type: "object",
            properties: {
              kind: { type: "string", const: "cron", required: true },
              expr: { type: "string", required: true },
            },
          },
          {
            type: "object",
            properties: {
              kind: { type: "string", const: "interval", required: true },
              every_s: { type: "integer", required: true },
            },
          },
        ],
      },
      id: { type: "integer" },
      ticket: { type: "string" },
    },
    checks: () => {},
    zod: z.strictObject({
      name: z.string(),
      job: z.union([
        z.strictObject({ kind: z.literal("cron"), expr: z.string() }),
        z.strictObject({ kind: z.literal("interval"), every_s: z.number().int() }),
      ]),
      id: z.number().int().optional(),
      ticket: z.string().optional(),
    }),
    valid: { name: "nightly", job: { kind: "cron", expr: "0 3 * * *" }, ticket: "T-1" },
  },
];
