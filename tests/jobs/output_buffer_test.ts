import { deepEqual, equal, throws } from "node:assert/strict";
import { OutputBuffer } from "../../jobs/output_buffer.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("OutputBuffer.read() serves the window from memory and older bytes from the spill file", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/out`;
  const buffer = new OutputBuffer({ windowBytes: 10, spillPath: path });
  for (let i = 0; i < 100; i++) buffer.write(`${i % 10}`);
  buffer.write(new Uint8Array(5000).fill(65));
  equal(buffer.total, 5100);
  equal(buffer.bytesOnDisk, 5100);
  const head = await buffer.read(0, 12);
  deepEqual([head.text, head.start, head.next, head.dropped], ["012345678901", 0, 12, 0]);
  const tail = await buffer.read(5095, 100);
  deepEqual([tail.text, tail.next, tail.total], ["AAAAA", 5100, 5100]);
  buffer.close();
  equal(buffer.path, path);
  equal((await Deno.stat(path)).size, 5100);
});

Deno.test("OutputBuffer.read() reports the exact dropped count without a spill file", async () => {
  const buffer = new OutputBuffer({ windowBytes: 6 });
  buffer.write("abcdefghij");
  const slice = await buffer.read(2);
  deepEqual([slice.dropped, slice.start, slice.text], [2, 4, "efghij"]);
  equal(buffer.path, undefined);
});

Deno.test("OutputBuffer.read() never ends inside a UTF-8 character of open output", async () => {
  const buffer = new OutputBuffer();
  buffer.write(new TextEncoder().encode("é€").subarray(0, 4)); // é + 2 of 3 bytes of €
  const first = await buffer.read(0);
  deepEqual([first.text, first.next], ["é", 2]);
  buffer.write(new Uint8Array([0xac]));
  const second = await buffer.read(first.next);
  equal(second.text, "€");
  buffer.close();
});

Deno.test("OutputBuffer.read() concatenates reads losslessly across memory and disk", async () => {
  await using dir = await tempDir();
  const buffer = new OutputBuffer({ windowBytes: 1000, spillPath: `${dir.path}/out` });
  let expected = "";
  for (let i = 0; i < 2000; i++) {
    const line = `line ${i} ${"x".repeat(i % 37)}\n`;
    expected += line;
    buffer.write(i % 3 === 0 ? new TextEncoder().encode(line.repeat(3)) : line);
    if (i % 3 === 0) expected += line.repeat(2);
  }
  buffer.close();
  let cursor = 0;
  let got = "";
  while (cursor < buffer.total) {
    const slice = await buffer.read(cursor, 777);
    got += slice.text;
    cursor = slice.next;
  }
  equal(got, expected);
});

Deno.test("OutputBuffer.write() throws after close and the constructor validates windowBytes", () => {
  const buffer = new OutputBuffer();
  buffer.close();
  throws(() => buffer.write("x"), {
    name: "TypeError",
    message: "Cannot write job output: the output is closed",
  });
  throws(() => new OutputBuffer({ windowBytes: 0 }), {
    name: "RangeError",
    message:
      "Cannot create output buffer as 'windowBytes' must be a positive integer: current value is 0",
  });
});

Deno.test("OutputBuffer counts bytes lost when the spill file fails", async () => {
  await using dir = await tempDir();
  const buffer = new OutputBuffer({ windowBytes: 4, spillPath: `${dir.path}/missing/out` });
  buffer.write("abcdefgh");
  equal(buffer.bytesOnDisk, 0);
  equal(buffer.spillError instanceof Deno.errors.NotFound, true);
  const slice = await buffer.read(0);
  deepEqual([slice.dropped, slice.text], [4, "efgh"]);
});
