/**
 * Private: when the written bytes of a session log reach stable storage. A sync or close with
 * nothing new skips the fsync; `soon` starts one without blocking the caller (the agent's turn
 * end: the answer need not wait for the disk).
 *
 * @module
 */

/** The fsync state of one log file. */
export class LogSync {
  /** Bytes were written since the last fsync. */
  unsynced = false;
  #syncing: Promise<void> = Promise.resolve();

  /** fsyncs `file` now when anything is unsynced. */
  now(file: Deno.FsFile): void {
    if (!this.unsynced) return;
    file.syncDataSync();
    this.unsynced = false;
  }

  /**
   * Starts an fsync of `file` in the background when anything is unsynced. A failure leaves the
   * bytes unsynced, so the next {@linkcode LogSync.now} retries (and throws).
   *
   * @returns Settles once every fsync started so far is done (never rejects).
   */
  soon(file: Deno.FsFile | undefined): Promise<void> {
    if (file === undefined || !this.unsynced) return this.#syncing;
    this.unsynced = false;
    this.#syncing = this.#syncing.then(() => file.syncData()).catch(() => {
      this.unsynced = true;
    });
    return this.#syncing;
  }
}
