import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';

/** Mode of the database and its WAL/SHM files: readable by the owner only, like a private key. */
export const DATABASE_FILE_MODE = 0o600;

/**
 * Creates the database file owner-only (0600) before SQLite opens it, whatever the umask, and narrows
 * an existing database, -wal and -shm to 0600. SQLite creates the -wal and -shm files with the
 * database file's mode, so they follow.
 */
export function makeDatabaseFilesPrivate(path: string): void {
  closeSync(openSync(path, 'a', DATABASE_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, DATABASE_FILE_MODE);
  }
}
