import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { OutputCapture } from "../../builtins/_output_capture.ts";
import { tempDir } from "../_helpers.ts";

const encoder = new TextEncoder();

Deno.test("OutputCapture keeps everything under the bound and writes no file", async () => {
  const capture = new OutputCapture({ limitBytes: 16 });
  await capture.write(encoder.encode("hello "));
  await capture.write(encoder.encode("world"));
  deepEqual(await capture.finish(), {
    totalBytes: 11,
    text: "hello world",
    truncated: false,
    headBytes: 0,
    tailBytes: 0,
  });
});

Deno.test("OutputCapture keeps head and tail on UTF-8 boundaries and spills every byte", async () => {
  await using dir = await tempDir();
  const capture = new OutputCapture({ limitBytes: 16, spillDir: dir.path });
  const input = "ééééé-middle-part-ééééé";
  for (const ch of input) await capture.write(encoder.encode(ch));
  const summary = await capture.finish();
  const total = encoder.encode(input).length;
  equal(summary.truncated, true);
  equal(await Deno.readTextFile(summary.spillPath!), input);
  equal(summary.headBytes, 8);
  ok(summary.tailBytes <= 8);
  equal(
    summary.text,
    `éééé\n[output truncated: showing first 8 and last ${summary.tailBytes} bytes of ${total}; full output: ${summary.spillPath}]\n${
      input.slice(-summary.tailBytes / 2)
    }`,
  );
});

Deno.test("OutputCapture says the full output is unavailable when the spill fails", async () => {
  const capture = new OutputCapture({ limitBytes: 16, spillDir: "/nonexistent/dir" });
  await capture.write(encoder.encode("a".repeat(40)));
  const summary = await capture.finish();
  equal(summary.spillPath, undefined);
  ok(summary.text.includes("full output: (unavailable: "), summary.text);
});

Deno.test("OutputCapture rejects a tiny bound", () => {
  throws(() => new OutputCapture({ limitBytes: 4 }), {
    name: "RangeError",
    message:
      "Cannot create an output capture as 'limitBytes' must be an integer of at least 16: current value is 4",
  });
});
