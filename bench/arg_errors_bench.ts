/**
 * `deno task bench:errors`: scores argument errors on the suite's mistakes (tests/tools) for
 * dsh with the schema DSL, dsh with zod 4, and the Vercel AI SDK's own messages for the same
 * tools and argument texts (its `safeParseJSON` + `InvalidToolInputError`, as `generateText`
 * reports a bad tool call), and prints one summary line each, in the same run.
 */
import { InvalidToolInputError } from "ai";
import { asSchema, safeParseJSON } from "@ai-sdk/provider-utils";
import { TOOLS } from "../tests/tools/arg_errors_fixtures.ts";
import { MISTAKES } from "../tests/tools/arg_errors_mistakes.ts";
import { type Check, dshCheck, score, summary } from "../tests/tools/arg_errors_score.ts";

/** The AI SDK's message for a tool call's input, as its tool-call parsing reports it. */
const aiSdkCheck: Check = async (name, text) => {
  const tool = TOOLS.find((t) => t.name === name)!;
  const result = await safeParseJSON({ text, schema: asSchema(tool.zod as never) });
  if (result.success) return undefined;
  return new InvalidToolInputError({ toolName: name, toolInput: text, cause: result.error })
    .message;
};

const verbose = Deno.args.includes("--verbose");
for (
  const [name, check] of [
    ["dsh-DSL", dshCheck("dsl")],
    ["dsh-zod", dshCheck("zod")],
    ["AI SDK 7 (zod)", aiSdkCheck],
  ] as const
) {
  const s = await score(check, MISTAKES);
  console.log(summary(name, s));
  if (verbose) { for (const u of s.unfixed) console.log(`  ${u.mistake.kind}: ${u.message}`); }
}
