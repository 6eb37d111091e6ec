/**
 * Private: the mark `snapshotJson` leaves on the roots it returns.
 *
 * @module
 */

/** Hands the object it is constructed with back as the instance (so a subclass's fields land on it). */
class Returns {
  constructor(target: object) {
    return target;
  }
}

/**
 * The mark of a root minted by `snapshotJson` (already checked, copied and frozen, so validators may
 * skip the walk). A private field stamped on the root itself: no module-level set, invisible to
 * reflection, copies and proxies, and read with `#mark in value` (no proxy trap runs).
 */
class SnapshotMark extends Returns {
  readonly #mark = true;

  static has(value: object): boolean {
    return #mark in value;
  }
}

/** Marks `root` (call it before the root is frozen). */
export function markSnapshot(root: object): void {
  new SnapshotMark(root);
}

/** Whether `value` was marked by {@linkcode markSnapshot}. */
export function isMarkedSnapshot(value: object): boolean {
  return SnapshotMark.has(value);
}
