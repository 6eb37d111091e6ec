/**
 * Run by launch_test.ts: relays its stdio to an "agent" that reads a little of its input, prints
 * a reason on stderr and exits 3 before answering (as a crashing agent would).
 */
import { relayAgent } from "../../acp/_relay.ts";

const child = new Deno.Command("sh", {
  args: ["-c", 'head -c 20 >/dev/null; echo "error: boom: grant --allow-x" >&2; exit 3'],
  stdin: "piped",
  stdout: "piped",
  stderr: "piped",
}).spawn();
Deno.exit(await relayAgent(child, () => false));
