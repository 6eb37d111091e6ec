/**
 * Byte helpers shared by every layer that buffers process or network output.
 *
 * @module
 */

/**
 * Joins byte chunks into one new array.
 *
 * @param chunks The chunks, in order.
 * @param size Their total length, when the caller already counted it (saves one pass).
 * @returns A fresh array holding every chunk's bytes.
 *
 * @example Usage
 * ```ts
 * import { concatBytes } from "./bytes.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]), new Uint8Array([1, 2, 3]));
 * ```
 */
export function concatBytes(chunks: readonly Uint8Array[], size?: number): Uint8Array {
  const out = new Uint8Array(size ?? chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
