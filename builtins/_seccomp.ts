/**
 * Private: the sandbox's seccomp filter, a classic BPF program that bubblewrap installs
 * (`--seccomp FD`) just before it runs the command. It denies, with `EPERM`:
 *
 * - `socket(AF_UNIX, …)`: no host pathname socket can be connected, wherever it lives (a Docker
 *   or colima socket in a home folder, an ssh-agent socket in a bound folder);
 * - `socketpair(AF_UNIX, SOCK_DGRAM, …)`: `sendto` a path from one end would reach a host
 *   datagram socket. Stream and seqpacket pairs stay allowed (they are connected to each other
 *   and cannot be pointed elsewhere), so pipes between processes (libuv, Python's
 *   multiprocessing) work;
 * - `socket(AF_VSOCK, …)`: no channel to a hypervisor or its guests;
 * - `io_uring_setup`: io_uring's `IORING_OP_SOCKET` would create sockets past the filter.
 *
 * The program checks `seccomp_data.arch` first. On x86_64 it covers the 64-bit ABI, x32
 * (numbers with bit 30 set) and i386, where `socketcall(SYS_SOCKET, …)` and
 * `socketcall(SYS_SOCKETPAIR, …)` cannot be filtered by family (their arguments are in memory)
 * and so fail for every family (the direct `socketpair` system call is filtered like on 64-bit,
 * and the sandbox has no network anyway). On aarch64 it covers the 64-bit ABI and
 * 32-bit ARM. A system call from any other ABI kills the process.
 *
 * @module
 */

/** The fd bubblewrap reads the program from (`--seccomp 3`). */
export const SECCOMP_FD = 3;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const AUDIT_ARCH_ARM = 0x40000028;
const X32_BIT = 0x40000000;

const AF_UNIX = 1;
const AF_VSOCK = 40;
const SOCK_DGRAM = 2;
/** `type` without `SOCK_NONBLOCK` and `SOCK_CLOEXEC`. */
const SOCK_TYPE_MASK = 0xf;
const EPERM = 1;
const SYS_SOCKET = 1;
const SYS_SOCKETPAIR = 8;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;

const LD_W_ABS = 0x20;
const AND_K = 0x54;
const JEQ_K = 0x15;
const RET_K = 0x06;

/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
/** The low 32 bits of `args[0]` and `args[1]` (little-endian, as every arch Deno runs on). */
const ARG0 = 16;
const ARG1 = 24;

/** One instruction; jumps name a label, resolved by {@linkcode assemble}. */
type Op =
  | { readonly load: number }
  | { readonly and: number }
  | { readonly ifEq: number; readonly then: string }
  | { readonly ret: number }
  | { readonly label: string };

/** One ABI the program accepts: its audit arch and the system calls to check. */
interface Abi {
  readonly arch: number;
  /** `socket` numbers whose family is checked. */
  readonly socket: readonly number[];
  /** `socketpair` numbers whose family and type are checked. */
  readonly socketpair: readonly number[];
  /** Numbers denied outright (`io_uring_setup`). */
  readonly denied: readonly number[];
  /** `socketcall` (i386), whose `SYS_SOCKET` call is denied. */
  readonly socketcall?: number;
}

const ABIS: Readonly<Record<string, readonly Abi[]>> = {
  x86_64: [
    {
      arch: AUDIT_ARCH_X86_64,
      socket: [41, X32_BIT | 41],
      socketpair: [53, X32_BIT | 53],
      denied: [425, X32_BIT | 425],
    },
    { arch: AUDIT_ARCH_I386, socket: [359], socketpair: [360], denied: [425], socketcall: 102 },
  ],
  aarch64: [
    { arch: AUDIT_ARCH_AARCH64, socket: [198], socketpair: [199], denied: [425] },
    { arch: AUDIT_ARCH_ARM, socket: [281], socketpair: [288], denied: [425] },
  ],
};

function program(abis: readonly Abi[], denyUnix: boolean): Op[] {
  const ops: Op[] = [{ load: ARCH }];
  abis.forEach((_, i) => ops.push({ ifEq: abis[i]!.arch, then: `abi${i}` }));
  ops.push({ ret: RET_KILL_PROCESS });
  abis.forEach((abi, i) => {
    ops.push({ label: `abi${i}` }, { load: NR });
    for (const nr of abi.socket) ops.push({ ifEq: nr, then: "socket" });
    if (denyUnix) { for (const nr of abi.socketpair) ops.push({ ifEq: nr, then: "socketpair" }); }
    for (const nr of abi.denied) ops.push({ ifEq: nr, then: "deny" });
    if (abi.socketcall !== undefined) ops.push({ ifEq: abi.socketcall, then: "socketcall" });
    ops.push({ ret: RET_ALLOW });
  });
  ops.push(
    { label: "socketcall" },
    { load: ARG0 },
    { ifEq: SYS_SOCKET, then: "deny" },
    ...(denyUnix ? [{ ifEq: SYS_SOCKETPAIR, then: "deny" }] : []),
    { ret: RET_ALLOW },
    { label: "socketpair" },
    { load: ARG0 },
    { ifEq: AF_UNIX, then: "pairtype" },
    { ret: RET_ALLOW },
    { label: "pairtype" },
    { load: ARG1 },
    { and: SOCK_TYPE_MASK },
    { ifEq: SOCK_DGRAM, then: "deny" },
    { ret: RET_ALLOW },
    { label: "socket" },
    { load: ARG0 },
    ...(denyUnix ? [{ ifEq: AF_UNIX, then: "deny" }] : []),
    { ifEq: AF_VSOCK, then: "deny" },
    { ret: RET_ALLOW },
    { label: "deny" },
    { ret: RET_ERRNO | EPERM },
  );
  return ops;
}

/** Encodes the ops as `struct sock_filter` records (u16 code, u8 jt, u8 jf, u32 k). */
function assemble(ops: readonly Op[]): Uint8Array {
  const labels = new Map<string, number>();
  const code: Exclude<Op, { label: string }>[] = [];
  for (const op of ops) {
    if ("label" in op) labels.set(op.label, code.length);
    else code.push(op);
  }
  const bytes = new Uint8Array(code.length * 8);
  const view = new DataView(bytes.buffer);
  code.forEach((op, i) => {
    const at = i * 8;
    if ("load" in op) {
      view.setUint16(at, LD_W_ABS, true);
      view.setUint32(at + 4, op.load, true);
    } else if ("and" in op) {
      view.setUint16(at, AND_K, true);
      view.setUint32(at + 4, op.and, true);
    } else if ("ret" in op) {
      view.setUint16(at, RET_K, true);
      view.setUint32(at + 4, op.ret, true);
    } else {
      const target = labels.get(op.then);
      const jump = target === undefined ? -1 : target - i - 1;
      if (jump < 0 || jump > 255) throw new RangeError(`Cannot jump to "${op.then}" from ${i}`);
      view.setUint16(at, JEQ_K, true);
      view.setUint8(at + 2, jump);
      view.setUint8(at + 3, 0);
      view.setUint32(at + 4, op.ifEq, true);
    }
  });
  return bytes;
}

/**
 * The seccomp program for an architecture (see the module doc for what it denies).
 *
 * @param allowUnix Leave `socket(AF_UNIX)` allowed (`AF_VSOCK` and io_uring stay denied).
 * @param arch `"x86_64"` or `"aarch64"`. @default {Deno.build.arch}
 * @returns The BPF program, ready for bubblewrap's `--seccomp`.
 * @throws {RangeError} For another architecture.
 */
export function socketFilter(allowUnix = false, arch: string = Deno.build.arch): Uint8Array {
  const abis = ABIS[arch];
  if (abis === undefined) {
    throw new RangeError(
      `Cannot build the sandbox's seccomp filter: architecture "${arch}" is not one of ${
        Object.keys(ABIS).join(", ")
      }`,
    );
  }
  return assemble(program(abis, !allowUnix));
}
