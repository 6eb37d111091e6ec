/**
 * Test helper process: opens (resumes) the session log given as the first argument, prints
 * `open <lastSeq>` or `error <message>`, appends one event per stdin line, and closes at stdin EOF.
 */
import { SessionLog } from "../../agent/session_log.ts";
import { errorMessage } from "../../core/error_message.ts";

const path = Deno.args[0]!;
let log: SessionLog;
try {
  ({ log } = await SessionLog.open(path));
} catch (error) {
  console.log(`error ${errorMessage(error)}`);
  Deno.exit(3);
}
console.log(`open ${log.lastSeq}`);
const decoder = new TextDecoder();
for await (const chunk of Deno.stdin.readable) {
  for (const line of decoder.decode(chunk).split("\n").filter((l) => l !== "")) {
    const event = log.append("test/line", { line });
    console.log(`appended ${event.seq}`);
  }
}
log.close();
console.log("closed");
