/**
 * `read` in bounded memory (issue 13): a real child process reads 1 GiB sparse files with the
 * real tool, and its peak RSS (VmHWM) is checked; plus streaming edge cases.
 */
import { equal, ok } from "node:assert/strict";
import { formatReadWindow, splitLines } from "../../builtins/fs_read.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

const GIB = 1024 * 1024 * 1024;
const CHILD = new URL("./_read_rss_child.ts", import.meta.url).pathname;

interface ChildReport {
  before: number;
  peak: number;
  isError: boolean;
  text: string;
}

async function readInChild(path: string, offset?: number): Promise<ChildReport> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", CHILD, path, ...(offset ? [String(offset)] : [])],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(code, 0, new TextDecoder().decode(stderr));
  return JSON.parse(new TextDecoder().decode(stdout));
}

Deno.test({
  name: "attack: read of a 1 GiB file stays under +32 MB of RSS in a real process",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using dir = await tempDir();
    // All zeros: refused as binary from its first bytes.
    const zeros = `${dir.path}/zeros.bin`;
    await Deno.writeFile(zeros, new Uint8Array());
    await Deno.truncate(zeros, GIB);
    const binary = await readInChild(zeros);
    equal(binary.isError, true);
    ok(binary.text.includes(`it is a binary file (${GIB} bytes)`), binary.text);
    ok(binary.peak - binary.before < 32 * 1024, `+${binary.peak - binary.before} KB`);
    // Text first, then 1 GiB of zeros without a newline: a window, then one giant last line.
    const mixed = `${dir.path}/mixed.txt`;
    await Deno.writeTextFile(
      mixed,
      Array.from({ length: 3000 }, (_, i) => `line ${i + 1}\n`).join(""),
    );
    await Deno.truncate(mixed, GIB);
    const head = await readInChild(mixed);
    equal(head.isError, false, head.text);
    ok(head.text.includes("1: line 1\\n2: line 2"), head.text);
    ok(head.peak - head.before < 32 * 1024, `+${head.peak - head.before} KB`);
    const giant = await readInChild(mixed, 3001);
    equal(giant.isError, false, giant.text);
    ok(giant.text.includes("3001: "), giant.text);
    ok(giant.peak - giant.before < 32 * 1024, `+${giant.peak - giant.before} KB`);
  },
});

Deno.test("read streams: same windows as the whole-text formatter, across chunk boundaries", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  const agent = fakeAgent(dir.path);
  // Multi-byte characters straddling the 256 KiB chunk boundary, long lines, CRLF, no final newline.
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 700_000; i++) {
    const line = i % 97 === 0 ? "é€😀".repeat(900) : `row ${i} ${"x€".repeat(i % 50)}\r`;
    lines.push(line);
    size += new TextEncoder().encode(line).length + 1;
  }
  const content = lines.join("\n");
  await Deno.writeTextFile(`${dir.path}/t.txt`, content);
  const all = splitLines(content);
  for (const [offset, limit] of [[1, 2000], [1500, 300], [all.length, 1], [2000, 2000]]) {
    const outcome = await ctx.call("read", { file_path: "t.txt", offset, limit }, agent);
    equal(text(outcome), formatReadWindow(`${dir.path}/t.txt`, all, offset!, limit!).text);
  }
});

Deno.test("read sniffs only the first 8 KiB: later invalid bytes read as U+FFFD", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  const agent = fakeAgent(dir.path);
  const late = new Uint8Array(9000).fill(0x61);
  for (let i = 79; i < late.length; i += 80) late[i] = 10;
  late[8500] = 0xff;
  await Deno.writeFile(`${dir.path}/late.txt`, late);
  const outcome = await ctx.call("read", { file_path: "late.txt" }, agent);
  equal(outcome.isError, false, text(outcome));
  ok(text(outcome).includes("\uFFFD"));
  const early = new Uint8Array([0x61, 0xc3, 0x28, 0x0a]);
  await Deno.writeFile(`${dir.path}/early.txt`, early);
  equal(
    text(await ctx.call("read", { file_path: "early.txt" }, agent)),
    `Error: Cannot read "${dir.path}/early.txt": it is a binary file (4 bytes); read returns text only`,
  );
});

Deno.test({
  name: "read refuses devices and FIFOs instead of blocking or reading forever",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using ctx = await fsHarness();
    for (const path of ["/dev/zero", "/dev/urandom"]) {
      equal(
        text(await ctx.call("read", { file_path: path })),
        `Error: Cannot read "${path}": it is not a regular file (a device, FIFO or socket)`,
      );
    }
  },
});
