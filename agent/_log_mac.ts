/**
 * Private: the signature of a session log. A running SHA-256 covers every byte written (the
 * header, each event line, earlier signature lines); a checkpoint line
 * `{"type":"log/mac","mac":"<hex>"}` carries HMAC-SHA256(key, domain ‖ digest of the bytes before
 * it). An append costs one hash update (a fraction of a microsecond); the HMAC is paid only at a
 * checkpoint (the header, every {@linkcode CHECKPOINT_LINES} lines, each `sync()` and `close()`).
 *
 * Verification walks the same bytes: a checkpoint whose MAC does not match means the log was
 * changed; the bytes after the last good checkpoint are unverified (a crash between checkpoints,
 * or lines someone appended) and are never loaded.
 *
 * @module
 */
import { createHash, createHmac, type Hash, timingSafeEqual } from "node:crypto";

/** A checkpoint is written at least this often (in lines). */
export const CHECKPOINT_LINES = 64;

const DOMAIN = new TextEncoder().encode("dsh session log mac v1\0");
const PREFIX = '{"type":"log/mac","mac":"';
const PREFIX_BYTES = new TextEncoder().encode(PREFIX);

function hmac(key: Uint8Array, digest: Uint8Array): string {
  return createHmac("sha256", key).update(DOMAIN).update(digest).digest("hex");
}

/** Signs the bytes of one log as they are written. */
export class LogSigner {
  #key: Uint8Array;
  #hash: Hash = createHash("sha256");
  /** Lines hashed since the last checkpoint. */
  pending = 0;

  /**
   * @param key The signing key.
   * @param hash The running hash of the bytes already in the file (resume). @default {a new one}
   */
  constructor(key: Uint8Array, hash?: Hash) {
    this.#key = key;
    if (hash !== undefined) this.#hash = hash;
  }

  /** Adds written bytes (whole lines with their newline). */
  update(bytes: Uint8Array): void {
    this.#hash.update(bytes);
    this.pending++;
  }

  /** The checkpoint line (without newline) for the bytes so far. */
  checkpoint(): string {
    const digest = this.#hash.copy().digest();
    return `${PREFIX}${hmac(this.#key, digest)}"}`;
  }
}

/** True for a signature line (the parser skips them). */
export function isMacLine(line: string): boolean {
  return line.startsWith(PREFIX);
}

/** What {@linkcode verifyLog} found. */
export interface LogVerification {
  /** Bytes up to and including the last good checkpoint line (0 when there is none). */
  readonly verifiedBytes: number;
  /** Signature lines seen. */
  readonly checkpoints: number;
  /** The 1-based line of the first checkpoint whose MAC is wrong, if any. */
  readonly badLine?: number;
  /** A signer that continues after `verifiedBytes` (for appending). */
  readonly signer: LogSigner;
}

function startsWithPrefix(bytes: Uint8Array, at: number): boolean {
  if (at + PREFIX_BYTES.length > bytes.length) return false;
  for (let i = 0; i < PREFIX_BYTES.length; i++) {
    if (bytes[at + i] !== PREFIX_BYTES[i]) return false;
  }
  return true;
}

/** Checks every checkpoint of a log's bytes with `key`. */
export function verifyLog(bytes: Uint8Array, key: Uint8Array): LogVerification {
  const running = createHash("sha256");
  const decoder = new TextDecoder();
  let segment = 0; // start of the bytes not hashed yet
  let verifiedBytes = 0;
  let checkpoints = 0;
  let lineNo = 0;
  for (let start = 0; start < bytes.length;) {
    const newline = bytes.indexOf(10, start);
    lineNo++;
    if (newline < 0) break; // a torn last line is never verified
    if (startsWithPrefix(bytes, start)) {
      running.update(bytes.subarray(segment, start));
      segment = start;
      const line = decoder.decode(bytes.subarray(start, newline));
      const expected = `${PREFIX}${hmac(key, running.copy().digest())}"}`;
      checkpoints++;
      if (!safeEqual(line, expected)) {
        return { verifiedBytes, checkpoints, badLine: lineNo, signer: new LogSigner(key) };
      }
      verifiedBytes = newline + 1;
    }
    start = newline + 1;
  }
  // The signer goes on from the verified prefix (the caller cuts off the unverified tail).
  running.update(bytes.subarray(segment, verifiedBytes));
  return { verifiedBytes, checkpoints, signer: new LogSigner(key, running) };
}

function safeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
