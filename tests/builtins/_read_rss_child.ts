/**
 * Child process of the read-RSS attack test: reads one file with the real `read` tool and
 * prints `{ before, peak, isError, text }` (VmRSS before the read and VmHWM after it, in KB).
 */
import { createReadTool } from "../../builtins/fs_read.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import type { ToolExecution } from "../../tools/definition.ts";

function status(field: string): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(
    Deno.readTextFileSync("/proc/self/status"),
  );
  return Number(match?.[1] ?? -1);
}

const [path, offset] = Deno.args;
const tool = createReadTool({ executor: new LocalExecutor() });
const args = { file_path: path!, ...(offset ? { offset: Number(offset) } : {}) };
const exec = {
  name: "read",
  callId: "c1",
  arguments: args,
  signal: new AbortController().signal,
} as unknown as ToolExecution;
const before = status("VmRSS");
let isError = false;
let text = "";
try {
  const result = await tool.execute(args, exec);
  text = JSON.stringify(result).slice(0, 600);
} catch (error) {
  isError = true;
  text = String(error);
}
console.log(JSON.stringify({ before, peak: status("VmHWM"), isError, text }));
