/**
 * The storage's current revision for the consistent reads asked for in one turn of the event loop, read
 * once for all of them: the read is made after every one of them asked (in `setImmediate`, after the I/O
 * that brought their requests), so it is at least as new as each of them needs. Under load many GETs
 * arrive in one turn; each used to make its own read (a `pread` of SQLite's WAL-index header, an etcd
 * round trip).
 */
export class RevisionBatch {
  private pending: Promise<number> | undefined;

  constructor(private readonly read: () => Promise<number>) {}

  /** A revision read after this call. */
  next(): Promise<number> {
    this.pending ??= new Promise<number>((resolve, reject) => {
      setImmediate(() => {
        // Callers from now on get the next read: this one may already be older than their request.
        this.pending = undefined;
        let read: Promise<number>;
        try {
          read = this.read();
        } catch (error) {
          reject(error);
          return;
        }
        read.then(resolve, reject);
      });
    });
    return this.pending;
  }
}
