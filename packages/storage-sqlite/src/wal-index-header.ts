import { closeSync, openSync, readSync } from 'node:fs';

/** The WAL-index header: its first copy, at the start of the `-shm` file (sqlite.org/walformat.html). */
const HEADER_BYTES = 48;
/** Offset of `isInit`: 1 once the header is valid. */
const IS_INIT_OFFSET = 12;

/**
 * Reads the WAL-index header of a WAL-mode database from its `-shm` file. Every commit, by any
 * connection of any process, rewrites that header (frame count, checksums, change counter; salts on
 * a WAL restart) before readers can see it, so an unchanged header means nothing was committed in the
 * meantime. One `pread`, no locks: much cheaper than a read transaction.
 */
export class WalIndexHeaderProbe {
  private fd: number | undefined;
  private readonly buffer = Buffer.alloc(HEADER_BYTES);

  /** `databasePath`: the database file; in-memory and URI databases have no probe. */
  constructor(private readonly databasePath: string) {}

  /**
   * The header, or undefined when it cannot be read (no `-shm` file yet, not initialised). The Buffer is
   * the probe's own and is overwritten by the next call: copy it to keep it.
   */
  read(): Buffer | undefined {
    if (this.fd === undefined) {
      if (this.databasePath === ':memory:' || this.databasePath.startsWith('file:')) return undefined;
      try {
        this.fd = openSync(`${this.databasePath}-shm`, 'r');
      } catch {
        return undefined;
      }
    }
    let read: number;
    try {
      read = readSync(this.fd, this.buffer, 0, HEADER_BYTES, 0);
    } catch {
      return undefined;
    }
    if (read < HEADER_BYTES || this.buffer[IS_INIT_OFFSET] !== 1) return undefined;
    return this.buffer;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
