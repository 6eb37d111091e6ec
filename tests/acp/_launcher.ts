/**
 * The shipped launcher as an editor runs it (`deno task agent`'s entry and permission flags),
 * for end-to-end tests that need the real profile and the stdin secrets line.
 */
import { client, ndJsonStream, type SessionUpdate } from "@agentclientprotocol/sdk";

/** The `agent` task's entry (deno.json). */
export const LAUNCH: string = new URL("../../acp/dsh_agent.ts", import.meta.url).pathname;
const DENO_JSON = new URL("../../deno.json", import.meta.url);

/** The permission flags of `deno task agent`, read from deno.json. */
export async function agentTaskFlags(): Promise<string[]> {
  const tasks = JSON.parse(await Deno.readTextFile(DENO_JSON)).tasks as Record<string, string>;
  return tasks.agent!.split(" ").filter((word) => word.startsWith("--allow-"));
}

/** Pids whose command line holds every one of `parts`. */
export function pidsWith(...parts: string[]): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      if (parts.every((part) => argv.some((arg) => arg.includes(part)))) {
        found.push(Number(entry.name));
      }
    } catch { /* gone */ }
  }
  return found;
}

/**
 * Runs the launcher in `ws` and connects an SDK client that answers every permission ask with
 * `answer`; `close()` resolves with the agent's stderr. With `fd7File` the launcher starts
 * through `bash`, so that it inherits descriptor 7 opened on that file without close-on-exec
 * (what an editor may leave open).
 */
export async function launchAgent(
  ws: string,
  args: readonly string[],
  env: Record<string, string>,
  answer: "allow_once" | "reject_once",
  fd7File?: string,
) {
  const updates: SessionUpdate[] = [];
  const deno = ["run", "--quiet", ...await agentTaskFlags(), LAUNCH, ...args];
  const [program, argv] = fd7File === undefined ? [Deno.execPath(), deno] : ["bash", [
    "-c",
    'exec 7<"$1"; shift; exec "$@"',
    "editor",
    fd7File,
    Deno.execPath(),
    ...deno,
  ]];
  const child = new Deno.Command(program, {
    args: argv,
    cwd: ws,
    clearEnv: true,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const errDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const connection = client({ name: "dsh-launcher-test" })
    .onNotification("session/update", ({ params }) => void updates.push(params.update))
    .onRequest("session/request_permission", () => ({
      outcome: { outcome: "selected", optionId: answer },
    }))
    .connect(ndJsonStream(child.stdin, child.stdout));
  await connection.agent.request("initialize", { protocolVersion: 1 });
  return {
    a: connection.agent,
    updates,
    async close(): Promise<string> {
      connection.close();
      await child.stdin.close().catch(() => {});
      await child.status;
      await errDone;
      return stderr;
    },
  };
}
