/**
 * The wire encoding of the pinned `@deno/sandbox` SDK (0.13.2), server side: JSON-RPC frames,
 * the `{ ok } | { error }` result envelope, bytes as base64, dates as ISO strings, errors as the
 * SDK's error object (`constructorName`, `message`, `code`, …), and the ids the SDK accepts.
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** A JSON value as it travels. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON-RPC message from the client (request or notification). */
export interface RpcInbound {
  readonly id?: number | string;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** The SDK's error object, as `errorSchema` encodes it. */
export interface WireError {
  readonly constructorName: string;
  readonly message: string;
  readonly code: string | null;
  readonly stack: null;
  readonly name: string | null;
}

/** An error a handler throws to answer `{ error }` with a chosen class and code. */
export class WireFailure extends Error {
  /** The class name the SDK rebuilds (`NotFound` becomes `Deno.errors.NotFound`). */
  readonly constructorName: string;
  /** The errno-like code (`ENOENT`), or null. */
  readonly code: string | null;
  /** Builds a failure. */
  constructor(constructorName: string, message: string, code: string | null = null) {
    super(message);
    this.constructorName = constructorName;
    this.code = code;
  }
}

/** A JSON-RPC protocol error (unknown method, bad params): the SDK throws `RpcError`. */
export class RpcProtocolError extends Error {
  /** The JSON-RPC error code (-32601 method not found, -32602 invalid params). */
  readonly rpcCode: number;
  /** Builds a protocol error. */
  constructor(rpcCode: number, message: string) {
    super(message);
    this.rpcCode = rpcCode;
  }
}

/** Encodes bytes as base64 (the SDK's `bytes()` codec). */
export function toBase64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}

/** Decodes base64 into bytes. */
export function fromBase64(text: string): Uint8Array {
  const buffer = Buffer.from(text, "base64");
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength).slice();
}

/** Turns any thrown value into the SDK's error object, with the host root replaced by "". */
export function encodeError(error: unknown, hostRoot: string): WireError {
  const scrub = (text: string) => hostRoot ? text.replaceAll(hostRoot, "") : text;
  if (error instanceof WireFailure) {
    return {
      constructorName: error.constructorName,
      message: scrub(error.message),
      code: error.code,
      stack: null,
      name: error.constructorName,
    };
  }
  if (error instanceof Error) {
    const code = "code" in error && typeof error.code === "string" ? error.code : null;
    const name = error.name === "Error" ? error.constructor.name : error.name;
    return { constructorName: name, message: scrub(error.message), code, stack: null, name };
  }
  return { constructorName: "Error", message: String(error), code: null, stack: null, name: null };
}

/** A success frame. */
export function okFrame(id: number | string, value: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result: { ok: value ?? null } });
}

/** A failure answered inside the result (`{ error }`): the SDK rethrows it as a typed error. */
export function errorResultFrame(id: number | string, error: WireError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result: { error } });
}

/** A JSON-RPC error frame: the SDK rejects the call with `RpcError`. */
export function rpcErrorFrame(id: number | string, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}

/** A notification frame (the `$sandbox.stream.*` family). */
export function notificationFrame(method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

/** Parses one text frame; null when it is not a JSON-RPC object with a method. */
export function parseInbound(text: string): RpcInbound | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  if (typeof record.method !== "string") return null;
  const id = typeof record.id === "number" || typeof record.id === "string" ? record.id : undefined;
  const params = typeof record.params === "object" && record.params !== null
    ? record.params as Record<string, unknown>
    : {};
  return id === undefined
    ? { method: record.method, params }
    : { id, method: record.method, params };
}

/** Reads a required string parameter. */
export function stringParam(params: Record<string, unknown>, name: string): string {
  const value = params[name];
  if (typeof value !== "string") {
    throw new RpcProtocolError(-32602, `Invalid params: '${name}' must be a string`);
  }
  return value;
}

/** Reads an optional parameter (the SDK encodes `undefined` as `null`). */
export function optionalParam<T>(
  params: Record<string, unknown>,
  name: string,
  type: "string" | "number" | "boolean" | "object",
): T | undefined {
  const value = params[name];
  if (value === null || value === undefined) return undefined;
  const actual: string = typeof value;
  if (actual !== type) {
    throw new RpcProtocolError(-32602, `Invalid params: '${name}' must be a ${type}`);
  }
  return value as T;
}

/** Encodes file metadata as the SDK's `stat` result. */
export function encodeStat(info: Deno.FileInfo): Record<string, Json> {
  const date = (value: Date | null) => (value ?? new Date(0)).toISOString();
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    size: info.size,
    mtime: date(info.mtime),
    atime: date(info.atime),
    birthtime: date(info.birthtime ?? info.mtime),
    ctime: date(info.ctime ?? info.mtime),
    mode: info.mode ?? 0,
    dev: info.dev,
    ino: info.ino ?? 0,
    nlink: info.nlink ?? 0,
    uid: info.uid ?? 0,
    gid: info.gid ?? 0,
    rdev: info.rdev ?? 0,
    blksize: info.blksize ?? 0,
    blocks: info.blocks ?? 0,
    isBlockDevice: info.isBlockDevice ?? false,
    isCharDevice: info.isCharDevice ?? false,
    isFifo: info.isFifo ?? false,
    isSocket: info.isSocket ?? false,
  };
}

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstuvwxyz";

/** A fresh sandbox id the SDK accepts (`/^sbx_([a-z]{3})_[0-9a-hjkmnp-z]{20}$/`). */
export function newSandboxId(region: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  const tail = Array.from(bytes, (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join("");
  return `sbx_${region}_${tail}`;
}

/** The signal names by number (Linux), for exit statuses of 128 + n. */
export const SIGNAL_NAMES: Readonly<Record<number, string>> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  4: "SIGILL",
  5: "SIGTRAP",
  6: "SIGABRT",
  7: "SIGBUS",
  8: "SIGFPE",
  9: "SIGKILL",
  10: "SIGUSR1",
  11: "SIGSEGV",
  12: "SIGUSR2",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
};
