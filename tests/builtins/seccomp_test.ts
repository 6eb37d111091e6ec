import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { socketFilter } from "../../builtins/_seccomp.ts";

/** Decodes `struct sock_filter` records. */
function decode(bytes: Uint8Array): { code: number; jt: number; jf: number; k: number }[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let at = 0; at < bytes.length; at += 8) {
    out.push({
      code: view.getUint16(at, true),
      jt: view.getUint8(at + 2),
      jf: view.getUint8(at + 3),
      k: view.getUint32(at + 4, true),
    });
  }
  return out;
}

/** Runs the program on one system call, as the kernel would (only the ops it uses). */
function verdict(
  bytes: Uint8Array,
  data: { arch: number; nr: number; arg0?: number; arg1?: number },
): number {
  const program = decode(bytes);
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) {
      const fields: Record<number, number> = {
        0: data.nr,
        4: data.arch,
        16: data.arg0 ?? 0,
        24: data.arg1 ?? 0,
      };
      acc = fields[k] ?? NaN;
    } else if (code === 0x54) acc = (acc & k) >>> 0;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected op ${code}`);
  }
  throw new Error("fell off the end");
}

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL = 0x80000000;

Deno.test("socketFilter() denies AF_UNIX and AF_VSOCK sockets and io_uring on x86_64, x32 and i386", () => {
  const bpf = socketFilter(false, "x86_64");
  const x64 = 0xc000003e;
  equal(verdict(bpf, { arch: x64, nr: 41, arg0: 1 }), EPERM);
  equal(verdict(bpf, { arch: x64, nr: 41, arg0: 40 }), EPERM);
  equal(verdict(bpf, { arch: x64, nr: 41, arg0: 2 }), ALLOW);
  equal(verdict(bpf, { arch: x64, nr: 53, arg0: 1, arg1: 1 }), ALLOW); // socketpair(STREAM)
  equal(verdict(bpf, { arch: x64, nr: 53, arg0: 1, arg1: 5 | 0x80000 }), ALLOW); // SEQPACKET|CLOEXEC
  equal(verdict(bpf, { arch: x64, nr: 53, arg0: 1, arg1: 2 | 0x800 }), EPERM); // DGRAM|NONBLOCK
  equal(verdict(bpf, { arch: x64, nr: 425 }), EPERM);
  equal(verdict(bpf, { arch: x64, nr: 0x40000000 | 41, arg0: 1 }), EPERM); // x32
  equal(verdict(bpf, { arch: x64, nr: 0 }), ALLOW);
  const i386 = 0x40000003;
  equal(verdict(bpf, { arch: i386, nr: 359, arg0: 1 }), EPERM);
  equal(verdict(bpf, { arch: i386, nr: 102, arg0: 1 }), EPERM); // socketcall(SYS_SOCKET)
  equal(verdict(bpf, { arch: i386, nr: 102, arg0: 8 }), EPERM); // socketcall(SYS_SOCKETPAIR)
  equal(verdict(bpf, { arch: i386, nr: 102, arg0: 3 }), ALLOW); // socketcall(SYS_CONNECT)
  equal(verdict(bpf, { arch: i386, nr: 360, arg0: 1, arg1: 1 }), ALLOW);
  equal(verdict(bpf, { arch: 0xc00000b7, nr: 198, arg0: 1 }), KILL); // not this machine's ABI
});

Deno.test("socketFilter() covers aarch64 and 32-bit ARM; allowUnix leaves AF_UNIX alone", () => {
  const bpf = socketFilter(false, "aarch64");
  equal(verdict(bpf, { arch: 0xc00000b7, nr: 198, arg0: 1 }), EPERM);
  equal(verdict(bpf, { arch: 0xc00000b7, nr: 198, arg0: 40 }), EPERM);
  equal(verdict(bpf, { arch: 0xc00000b7, nr: 199, arg0: 1, arg1: 1 }), ALLOW); // socketpair
  equal(verdict(bpf, { arch: 0xc00000b7, nr: 199, arg0: 1, arg1: 2 }), EPERM);
  equal(verdict(bpf, { arch: 0x40000028, nr: 288, arg0: 1, arg1: 2 }), EPERM);
  equal(verdict(bpf, { arch: 0x40000028, nr: 281, arg0: 1 }), EPERM);
  const open = socketFilter(true, "aarch64");
  equal(verdict(open, { arch: 0xc00000b7, nr: 198, arg0: 1 }), ALLOW);
  equal(verdict(open, { arch: 0xc00000b7, nr: 199, arg0: 1, arg1: 2 }), ALLOW);
  equal(verdict(open, { arch: 0xc00000b7, nr: 198, arg0: 40 }), EPERM);
  ok(open.length < bpf.length);
});

Deno.test("socketFilter() names an architecture it has no program for", () => {
  throws(() => socketFilter(false, "riscv64"), {
    name: "RangeError",
    message:
      'Cannot build the sandbox\'s seccomp filter: architecture "riscv64" is not one of x86_64, aarch64',
  });
  deepEqual(socketFilter(), socketFilter(false, Deno.build.arch));
});
