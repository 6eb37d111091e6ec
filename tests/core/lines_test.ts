import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { concatBytes, LineSplitter, LineTooLongError, readLines } from "../../core/mod.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("concatBytes joins chunks with or without a counted size", () => {
  const chunks = [bytes("ab"), new Uint8Array(), bytes("c")];
  deepEqual(concatBytes(chunks), bytes("abc"));
  deepEqual(concatBytes(chunks, 3), bytes("abc"));
  deepEqual(concatBytes([]), new Uint8Array());
});

Deno.test("LineSplitter keeps a multi-byte character cut across chunks whole", () => {
  const all = bytes("héllo\nwörld\n");
  const splitter = new LineSplitter();
  const lines: string[] = [];
  for (let i = 0; i < all.length; i++) lines.push(...splitter.push(all.subarray(i, i + 1)));
  deepEqual(lines, ["héllo", "wörld"]);
  equal(splitter.end(), undefined);
});

Deno.test("LineSplitter keeps empty lines and a carriage return", () => {
  const splitter = new LineSplitter();
  deepEqual(splitter.push(bytes("a\r\n\nb")), ["a\r", ""]);
  equal(splitter.end(), "b");
});

Deno.test("LineSplitter throws as soon as a line grows past the cap", () => {
  const splitter = new LineSplitter({ maxLineBytes: 4 });
  deepEqual(splitter.push(bytes("1234\n12")), ["1234"]);
  throws(() => splitter.push(bytes("345")), LineTooLongError);
  throws(() => new LineSplitter({ maxLineBytes: 4 }).push(bytes("12345")), /longer than 4 bytes/);
});

Deno.test("readLines emits or drops the unterminated last line", async () => {
  const stream = () => ReadableStream.from([bytes("a\nb"), bytes("c")]);
  deepEqual(await Array.fromAsync(readLines(stream())), ["a", "bc"]);
  deepEqual(await Array.fromAsync(readLines(stream(), { unterminated: "drop" })), ["a"]);
  await rejects(
    Array.fromAsync(readLines(stream(), { maxLineBytes: 1 })),
    (error: unknown) => error instanceof LineTooLongError && error.limit === 1,
  );
});

Deno.test("LineSplitter skips an oversized line unbuffered and reports its size and ends", () => {
  const splitter = new LineSplitter({
    maxLineBytes: 4,
    oversized: "skip",
    headBytes: 2,
    tailBytes: 3,
  });
  deepEqual(splitter.pushBytes(bytes("ok\n0123")), [bytes("ok")]);
  deepEqual(splitter.pushBytes(bytes("456")), []);
  deepEqual(splitter.pushBytes(bytes("789\nfine\n")), [
    { size: 10, head: bytes("01"), tail: bytes("789") },
    bytes("fine"),
  ]);
  deepEqual(splitter.pushBytes(bytes("abcdefg")), []);
  deepEqual(splitter.endBytes(), { size: 7, head: bytes("ab"), tail: bytes("efg") });
  equal(splitter.endBytes(), undefined);
});

Deno.test("LineSplitter.push leaves skipped lines out of the text", () => {
  const splitter = new LineSplitter({ maxLineBytes: 2, oversized: "skip" });
  deepEqual(splitter.push(bytes("a\nlong\nb\n")), ["a", "b"]);
  splitter.push(bytes("long"));
  equal(splitter.end(), undefined);
});
