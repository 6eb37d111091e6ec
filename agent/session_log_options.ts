/**
 * The options of `SessionLog.create` and `SessionLog.open` (apart from the class, so that the
 * helpers that build a log read them without importing it).
 *
 * @module
 */

/** Options for `SessionLog.create`. */
export interface CreateSessionLogOptions {
  /** Session id. */
  readonly id: string;
  /** Session working directory (absolute). */
  readonly cwd: string;
  /** Creation time. @default {new Date()} */
  readonly createdAt?: Date;
  /** fsync after every event instead of only on `sync()`. @default {false} */
  readonly syncEveryEvent?: boolean;
  /** Signs the log (32 bytes, see `loadSessionKey`). @default {unsigned} */
  readonly key?: Uint8Array;
}

/** Options for `SessionLog.open`. */
export interface OpenSessionLogOptions {
  /** fsync after every event instead of only on `sync()`. @default {false} */
  readonly syncEveryEvent?: boolean;
  /**
   * Checks the log's signature and goes on signing; a log changed by anyone else, or one without
   * signatures, is refused. @default {no check, unsigned appends}
   */
  readonly key?: Uint8Array;
  /** The session id the header must name (a log copied over another is refused). */
  readonly id?: string;
}
