import type Database from 'better-sqlite3';

/** Row types of the revision log (`log.type`). */
export const PUT = 0;
export const DELETE = 1;

/**
 * The schema, kine-style:
 * - `log`: one row per write; the row id is the global revision (an empty log is at revision 1, as in
 *   etcd, so the first write is revision 2). A delete is a row of type DELETE
 *   with an empty value. `prev_revision` is the key's previous live row (0 for a creation).
 * - `current`: the latest live row of every existing key, so latest reads and writes need no scan.
 * - `meta`: the compacted revision.
 * Keys are BLOBs (UTF-8 bytes) so that every comparison is a byte comparison.
 */
const schema = [
  `CREATE TABLE IF NOT EXISTS log (
     revision INTEGER PRIMARY KEY,
     key BLOB NOT NULL,
     type INTEGER NOT NULL,
     value BLOB NOT NULL,
     create_revision INTEGER NOT NULL,
     prev_revision INTEGER NOT NULL,
     expires_at INTEGER
   )`,
  // With the row type, so that the count of keys live at a past revision (a continue page's
  // remainingItemCount) reads the index alone. Replaces the former (key, revision) index.
  `CREATE INDEX IF NOT EXISTS log_key_revision_type ON log (key, revision, type)`,
  `DROP INDEX IF EXISTS log_key_revision`,
  `CREATE INDEX IF NOT EXISTS log_expires_at ON log (expires_at) WHERE expires_at IS NOT NULL`,
  `CREATE TABLE IF NOT EXISTS current (key BLOB PRIMARY KEY, revision INTEGER NOT NULL) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID`,
];

/** Opens the connection for durable, multi-process use and creates the schema. */
export function initializeDatabase(db: Database.Database, busyTimeoutMs: number, exclusive = false): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  // Before the first WAL access: the connection keeps its file lock, and the WAL index lives in its own
  // memory (no -shm file, no lock calls per transaction). Other processes cannot open the file.
  if (exclusive) db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.transaction(() => {
    for (const statement of schema) db.exec(statement);
  }).immediate();
}

/** A log row as read back (key and value are Buffers). */
export interface LogRow {
  revision: number;
  key: Buffer;
  type: number;
  value: Buffer;
  create_revision: number;
  prev_revision: number;
  expires_at: number | null;
}

/**
 * A live row as a current-revision range reads it: the key comes back as a string (the same UTF-8
 * bytes, cast to TEXT), so a large list makes no Buffer per key only to decode it.
 */
export type CurrentRow = Omit<LogRow, 'key'> & { key: string };

/** The head revision beside a key's live row; the row's columns are null when the key does not exist. */
export type HeadAndRow = { head: number } & (LogRow | { [K in keyof LogRow]: null });

const rowColumns = 'l.revision, l.key, l.type, l.value, l.create_revision, l.prev_revision, l.expires_at';

/** Every statement the backend runs, prepared once. */
export class SqliteStatements {
  readonly maxRevision: Database.Statement<[], { revision: number }>;
  readonly compactedRevision: Database.Statement<[], { value: number }>;
  readonly setCompactedRevision: Database.Statement<[number]>;
  readonly rowAt: Database.Statement<[number], LogRow>;
  readonly currentRow: Database.Statement<[Buffer], LogRow>;
  readonly currentRowWithHead: Database.Statement<[Buffer], HeadAndRow>;
  readonly rowAtOrBefore: Database.Statement<[Buffer, number], LogRow>;
  readonly currentRange: Database.Statement<[Buffer, Buffer, number], CurrentRow>;
  readonly currentCount: Database.Statement<[Buffer, Buffer], { count: number }>;
  readonly pastRange: Database.Statement<[Buffer, Buffer, number, number], LogRow>;
  readonly pastCount: Database.Statement<[Buffer, Buffer, number], { count: number }>;
  readonly insertRow: Database.Statement<[number, Buffer, number, Buffer, number, number, number | null]>;
  readonly upsertCurrent: Database.Statement<[Buffer, number]>;
  readonly deleteCurrent: Database.Statement<[Buffer]>;
  readonly rowsAfter: Database.Statement<[number, number, number], LogRow>;
  readonly matchingRevisionsAfter: Database.Statement<[Buffer, Buffer, number, number], number>;
  readonly matchingRowsBetween: Database.Statement<[number, number, Buffer, Buffer], LogRow>;
  readonly expired: Database.Statement<[number, number], { key: Buffer; revision: number }>;
  readonly compact: Database.Statement<[number, number, number]>;

  constructor(db: Database.Database) {
    // Like etcd, an empty store is at revision 1 and the first write is revision 2.
    this.maxRevision = db.prepare('SELECT coalesce(max(revision), 1) AS revision FROM log');
    this.compactedRevision = db.prepare(`SELECT value FROM meta WHERE name = 'compacted_revision'`);
    this.setCompactedRevision = db.prepare(
      `INSERT INTO meta (name, value) VALUES ('compacted_revision', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    );
    this.rowAt = db.prepare(`SELECT ${rowColumns} FROM log l WHERE l.revision = ?`);
    this.currentRow = db.prepare(
      `SELECT ${rowColumns} FROM current c JOIN log l ON l.revision = c.revision WHERE c.key = ?`,
    );
    // One statement, so one snapshot: the head revision and the key's live row (columns null when absent).
    this.currentRowWithHead = db.prepare(
      `SELECT h.head, ${rowColumns} FROM (SELECT coalesce(max(revision), 1) AS head FROM log) h
       LEFT JOIN current c ON c.key = ? LEFT JOIN log l ON l.revision = c.revision`,
    );
    this.rowAtOrBefore = db.prepare(
      `SELECT ${rowColumns} FROM log l WHERE l.key = ? AND l.revision <= ? ORDER BY l.revision DESC LIMIT 1`,
    );
    this.currentRange = db.prepare(
      `SELECT ${rowColumns.replace('l.key', 'CAST(l.key AS TEXT) AS key')} FROM current c JOIN log l ON l.revision = c.revision
       WHERE c.key >= ? AND c.key < ? ORDER BY c.key LIMIT ?`,
    );
    this.currentCount = db.prepare('SELECT count(*) AS count FROM current WHERE key >= ? AND key < ?');
    // The newest row at or before the revision of each key, streamed in key order from the (key, revision) index.
    const latestPerKey = `SELECT key AS k, max(revision) AS latest FROM log
       WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key ORDER BY key`;
    this.pastRange = db.prepare(
      `SELECT ${rowColumns} FROM (${latestPerKey}) m JOIN log l ON l.revision = m.latest
       WHERE l.type = ${PUT} ORDER BY m.k LIMIT ?`,
    );
    // SQLite's max() takes the bare column `type` from the row holding the maximum: no lookup of the row.
    this.pastCount = db.prepare(
      `SELECT count(*) AS count FROM (SELECT type, max(revision) FROM log
         WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key) WHERE type = ${PUT}`,
    );
    this.insertRow = db.prepare(
      `INSERT INTO log (revision, key, type, value, create_revision, prev_revision, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.upsertCurrent = db.prepare(
      'INSERT INTO current (key, revision) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET revision = excluded.revision',
    );
    this.deleteCurrent = db.prepare('DELETE FROM current WHERE key = ?');
    this.rowsAfter = db.prepare(
      `SELECT ${rowColumns} FROM log l WHERE l.revision > ? AND l.revision <= ? ORDER BY l.revision LIMIT ?`,
    );
    // From the (key, revision, type) index alone: a watch's replay reads only its own rows, not every row of
    // the log in its revision range (which, for each of many resources, is the whole log after a bulk load).
    this.matchingRevisionsAfter = db
      .prepare<[Buffer, Buffer, number, number], number>(
        `SELECT revision FROM log INDEXED BY log_key_revision_type WHERE key >= ? AND key < ? AND revision > ? AND revision <= ?`,
      )
      .pluck();
    // The rows of a key range in a revision span, in one statement walking the span by revision (the
    // replay uses it for spans its rows fill densely, as after a bulk load).
    this.matchingRowsBetween = db.prepare(
      `SELECT ${rowColumns} FROM log l WHERE l.revision >= ? AND l.revision <= ? AND l.key >= ? AND l.key < ? ORDER BY l.revision`,
    );
    this.expired = db.prepare(
      `SELECT l.key, l.revision FROM log l
       WHERE l.expires_at IS NOT NULL AND l.expires_at <= ?
         AND EXISTS (SELECT 1 FROM current c WHERE c.key = l.key AND c.revision = l.revision)
       ORDER BY l.expires_at LIMIT ?`,
    );
    // Removes rows below the compaction revision that no read at or after it needs: deletions, and puts
    // superseded by a later row that is itself below it. The newest row always stays (it holds the revision).
    this.compact = db.prepare(
      `DELETE FROM log WHERE revision < ? AND revision < ? AND (
         type = ${DELETE}
         OR EXISTS (SELECT 1 FROM log n WHERE n.key = log.key AND n.revision > log.revision AND n.revision < ?)
       )`,
    );
  }
}
