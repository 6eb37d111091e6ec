/** Child of fs_pinned_test.ts: reads, then overwrites, a file it may reach only by its own path. */
import { createReadTool } from "../../builtins/fs_read.ts";
import { createWriteTool } from "../../builtins/fs_write.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";

const [path] = Deno.args;
const options = { executor: new LocalExecutor() };
const exec = {
  callId: "c",
  name: "read",
  arguments: {},
  token: Symbol("t"),
  signal: new AbortController().signal,
  output: { write() {} },
  deferContext() {},
} as never;
const read = await createReadTool(options).execute({ file_path: path! }, exec);
const write = await createWriteTool(options).execute({ file_path: path!, content: "new\n" }, exec);
console.log(JSON.stringify({ read, write, content: await Deno.readTextFile(path!) }));
