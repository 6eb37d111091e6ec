/**
 * Private to `json.ts`: recognizing another realm's intrinsic prototypes.
 *
 * @module
 */

/** Whether `proto` is `Object.prototype` (or, for arrays, `Array.prototype`) of another realm. */
export function isForeignIntrinsic(proto: object | null, array: boolean): boolean {
  if (proto === null) return false;
  const protoProto = Object.getPrototypeOf(proto);
  if (array) {
    // Another realm's Array.prototype is itself an array whose prototype is that realm's
    // Object.prototype.
    return Array.isArray(proto) && protoProto !== null &&
      Object.getPrototypeOf(protoProto) === null;
  }
  return protoProto === null && Object.hasOwn(proto, "isPrototypeOf") &&
    Object.hasOwn(proto, "hasOwnProperty");
}
