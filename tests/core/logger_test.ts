import { deepEqual, equal, throws } from "node:assert/strict";
import { createLogger, type LogRecord } from "../../core/logger.ts";

Deno.test("createLogger() filters by level and names children", () => {
  const records: LogRecord[] = [];
  const logger = createLogger({ name: "a", level: "info", sink: (r) => records.push(r) });
  logger.debug("dropped");
  logger.info("kept", { n: 1 });
  logger.child("b").error("child");
  deepEqual(records, [
    { level: "info", name: "a", message: "kept", data: { n: 1 } },
    { level: "error", name: "b", message: "child" },
  ]);
});

Deno.test("createLogger() survives a throwing sink and rejects unknown levels", () => {
  const logger = createLogger({
    sink: () => {
      throw new Error("sink down");
    },
  });
  logger.error("still fine");
  throws(() => createLogger({ level: "loud" as "info" }), {
    name: "RangeError",
    message: 'Cannot create a logger: level is "loud", expected debug, info, warn or error',
  });
});

Deno.test("stderrSink writes to stderr, never stdout", async () => {
  const script = `
    import { createLogger } from ${
    JSON.stringify(new URL("../../core/logger.ts", import.meta.url).href)
  };
    createLogger({ name: "probe" }).warn("to stderr", { id: 7 });
  `;
  const { stdout, stderr, code } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-check", script],
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
  }).output();
  equal(code, 0);
  equal(new TextDecoder().decode(stdout), "");
  equal(new TextDecoder().decode(stderr), '[dsh] WARN probe: to stderr {"id":7}\n');
});
