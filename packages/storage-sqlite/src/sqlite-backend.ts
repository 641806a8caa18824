import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  FutureRevisionError,
  RevisionCompactedError,
  StorageError,
  type KVBackend,
  type KVConditionOptions,
  type KVEvent,
  type KVGetResult,
  type KVRangeOptions,
  type KVRangeResult,
  type KVWatch,
  type KVWatchListener,
  type KVWatchOptions,
  type KVWriteOptions,
  type KVWriteResult,
} from '@kapi/storage';
import { isEmptyRange, keyBytes, rangeOf } from './key-range.js';
import { RangeCountMemo } from './range-count-memo.js';
import { entryOfRow } from './log-row.js';
import { initializeDatabase, PUT, SqliteStatements, type HeadAndRow } from './sqlite-schema.js';
import { WalIndexHeaderProbe } from './wal-index-header.js';
import { WatchHub } from './watch-hub.js';
import { batchWriter, compactLog } from './write-batch.js';
import { WriteQueue } from './write-queue.js';
import { eventOfWrite, type WriteRequest } from './write-request.js';
import { WriterThread } from './writer-thread.js';
import { makeDatabaseFilesPrivate } from './private-files.js';

/** Options of {@link SqliteBackend.open}. */
export interface SqliteBackendOptions {
  /** The database file (created when missing). Several processes may open the same file (unless `exclusive`). */
  path: string;
  /** How often watches that asked for progress notifications get one. Default 5000 ms. */
  progressNotifyIntervalMs?: number;
  /** How often the log is polled for writes of other processes. Default 100 ms. */
  pollIntervalMs?: number;
  /** How often expired keys are deleted. Default 1000 ms. */
  ttlSweepIntervalMs?: number;
  /** How long a write waits for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** The clock for TTLs (epoch milliseconds). Default `Date.now`. */
  now?: () => number;
  /**
   * This backend is the only user of the file (SQLite's EXCLUSIVE locking mode): no other process or
   * connection can open it while it is open. Reads and writes take no file locks, and the current
   * revision is known without reading the log. Default false (the file may be shared).
   */
  exclusive?: boolean;
  /**
   * Commit on a worker thread with its own connection, so that the SQLite work and fsync of a group
   * commit run beside the event loop instead of blocking it. Reads stay on the calling thread. Needs the
   * shared locking mode (not `exclusive`). Default false.
   */
  writerThread?: boolean;
  /**
   * With `writerThread`: how often a third connection, on a thread of its own, copies the WAL back
   * into the database (a PASSIVE checkpoint), so that commits do not stop for it. Default 250 ms; 0
   * leaves checkpoints to the committing connection (SQLite's default, every 1000 WAL pages).
   */
  checkpointIntervalMs?: number;
}

/** Counters of the write path. */
export interface SqliteBackendStats {
  /** Write transactions committed (one fsync each); group commit makes this lower than `writes`. */
  transactions: number;
  /** Successful writes (each one revision). */
  writes: number;
  /** Checkpoints run by the checkpoint thread (see `checkpointIntervalMs`). */
  checkpoints: number;
}

/** Expired keys deleted per sweep step. */
const sweepBatch = 1000;

/**
 * A durable {@link KVBackend} on one SQLite file, kine-style: a revision log whose row id is the global
 * revision, plus a table of current rows. Writes queued in the same tick commit in one transaction
 * (group commit: one fsync) with a revision each. Watches get this process's writes right after the
 * commit and other processes' writes through a poller.
 */
export class SqliteBackend implements KVBackend {
  readonly name = 'sqlite';
  private readonly statements: SqliteStatements;
  private readonly hub: WatchHub;
  private readonly now: () => number;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly writes: WriteQueue;
  private sweeping = false;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly counters: Omit<SqliteBackendStats, 'checkpoints'> = { transactions: 0, writes: 0 };
  /** The writer thread's number of the last transaction counted. */
  private lastTransaction: number | undefined;
  private readonly walIndex: WalIndexHeaderProbe;
  /** With `exclusive`, the current revision, kept up to date by this backend's commits. */
  private exclusiveHead: number | undefined;
  /** The last revision read, with the WAL-index header seen just before reading it. */
  private head: { header: Buffer; revision: number } | undefined;
  private readonly readAt: (key: string, revision: number) => KVGetResult;
  private readonly readRange: (options: KVRangeOptions) => KVRangeResult;
  /** Keys left after a page, for its continue page at the same revision. */
  private readonly rangeCounts = new RangeCountMemo();

  private constructor(
    private readonly db: Database.Database,
    options: SqliteBackendOptions,
    private readonly writer: WriterThread | undefined,
  ) {
    this.now = options.now ?? Date.now;
    this.statements = new SqliteStatements(db);
    this.walIndex = new WalIndexHeaderProbe(db.name);
    if (options.exclusive) this.exclusiveHead = this.readCurrentRevision();
    this.hub = new WatchHub(this.statements, this.now, this.readCurrentRevision());
    this.readAt = db.transaction((key: string, requested: number): KVGetResult => {
      const revision = this.readRevision(requested);
      const row = revision.latest
        ? this.statements.currentRow.get(keyBytes(key))
        : this.statements.rowAtOrBefore.get(keyBytes(key), revision.value);
      return row && row.type === PUT
        ? { entry: entryOfRow(row, this.now()), revision: revision.value }
        : { revision: revision.value };
    });
    this.readRange = db.transaction((options: KVRangeOptions) => this.rangeInTransaction(options));
    this.writes = new WriteQueue(writer ? { thread: writer } : { inline: batchWriter(db, this.statements) }, this.now, (requests, results, transaction) =>
      this.committed(requests, results, transaction),
    );
    this.every(options.pollIntervalMs ?? 100, () => this.hub.catchUp());
    this.every(options.progressNotifyIntervalMs ?? 5000, () => {
      this.hub.catchUp();
      this.hub.notifyProgress(true);
    });
    this.every(options.ttlSweepIntervalMs ?? 1000, () => this.sweepExpired());
  }

  /** Opens (creating when needed) the database at `options.path`. */
  static async open(options: SqliteBackendOptions): Promise<SqliteBackend> {
    if (options.path !== ':memory:' && !options.path.startsWith('file:')) {
      mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
      makeDatabaseFilesPrivate(options.path);
    }
    if (options.writerThread && options.exclusive)
      throw new Error('a sqlite backend with a writer thread cannot be exclusive: the thread has its own connection');
    if (options.writerThread && (options.path === ':memory:' || options.path.startsWith('file:')))
      throw new Error('a sqlite backend with a writer thread needs a database file path');
    const db = new Database(options.path);
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    try {
      initializeDatabase(db, busyTimeoutMs, options.exclusive ?? false);
      const writer = options.writerThread
        ? await WriterThread.start({ path: db.name, busyTimeoutMs, checkpointIntervalMs: options.checkpointIntervalMs ?? 250 })
        : undefined;
      return new SqliteBackend(db, options, writer);
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code === 'SQLITE_BUSY') {
        throw new Error(
          `the SQLite database ${options.path} is locked by another process` +
            (options.exclusive ? ' (this backend wants it to itself: exclusive)' : ' that holds it exclusively'),
          { cause: error },
        );
      }
      throw error;
    }
  }

  /**
   * Throws unless the backend can serve: open, its writer thread (if any) alive, and the database
   * readable (for health checks).
   */
  checkHealth(): void {
    this.assertOpen('');
    const failed = this.writer?.failed;
    if (failed) throw new Error(`the sqlite writer thread failed: ${failed.message}`);
    this.readCurrentRevision();
  }

  /** Write-path counters (for tests and metrics). */
  get stats(): SqliteBackendStats {
    return { ...this.counters, checkpoints: this.writer?.checkpoints ?? 0 };
  }

  async get(key: string, options: { revision?: number } = {}): Promise<KVGetResult> {
    this.assertOpen(key);
    if (options.revision === undefined || options.revision <= 0) {
      // The head subquery always yields exactly one row.
      const row = this.statements.currentRowWithHead.get(keyBytes(key)) as HeadAndRow;
      return row.revision === null ? { revision: row.head } : { entry: entryOfRow(row, this.now()), revision: row.head };
    }
    return this.readAt(key, options.revision);
  }

  async range(options: KVRangeOptions): Promise<KVRangeResult> {
    this.assertOpen(options.key);
    return this.readRange(options);
  }

  /** A range at one revision; runs inside the read transaction {@link readRange}. */
  private rangeInTransaction(options: KVRangeOptions): KVRangeResult {
    const revision = this.readRevision(options.revision);
    const range = rangeOf(options.key, options.prefix, options.startKey);
    if (isEmptyRange(range)) return { entries: [], more: false, count: 0, revision: revision.value };
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : -1;
    const { start, end } = range;
    const count =
      this.rangeCounts.get(start, end, revision.value) ??
      (revision.latest
        ? (this.statements.currentCount.get(start, end)?.count ?? 0)
        : (this.statements.pastCount.get(start, end, revision.value)?.count ?? 0));
    if (options.countOnly) return { entries: [], more: false, count, revision: revision.value };
    const rows = revision.latest
      ? this.statements.currentRange.all(start, end, limit)
      : this.statements.pastRange.all(start, end, revision.value, limit);
    const now = this.now();
    const entries = rows.map((row) => entryOfRow(row, now));
    const last = rows[rows.length - 1];
    if (last && limit > 0 && count > rows.length) {
      // The next page starts right after the last key: remember what it will find left, so it counts nothing.
      this.rangeCounts.remember(Buffer.concat([typeof last.key === 'string' ? keyBytes(last.key) : last.key, Buffer.from([0])]), end, revision.value, count - rows.length);
    }
    return { entries, more: limit > 0 && count > entries.length, count, revision: revision.value };
  }

  create(key: string, value: Uint8Array, options: KVWriteOptions = {}): Promise<KVWriteResult> {
    return this.enqueue(writeRequest('create', key, value, 0, options));
  }

  update(
    key: string,
    value: Uint8Array,
    expectedModRevision: number,
    options: KVWriteOptions = {},
  ): Promise<KVWriteResult> {
    return this.enqueue(writeRequest('update', key, value, expectedModRevision, options));
  }

  delete(key: string, expectedModRevision: number, options: KVConditionOptions = {}): Promise<KVWriteResult> {
    return this.enqueue(writeRequest('delete', key, new Uint8Array(0), expectedModRevision, options));
  }

  watch(options: KVWatchOptions, listener: KVWatchListener): KVWatch {
    if (this.closed) {
      queueMicrotask(() => listener.onError(closedError(options.key)));
      return { cancel: () => {} };
    }
    return this.hub.add(options, listener);
  }

  async currentRevision(): Promise<number> {
    this.assertOpen('');
    return this.readHeadRevision();
  }

  /**
   * The current revision, read again only when the WAL-index header shows a commit (by any process)
   * since it was last read. The header is taken before the query, so a commit racing the query can only
   * make the remembered revision newer than the header it is kept with, never older.
   */
  private readHeadRevision(): number {
    if (this.exclusiveHead !== undefined) return this.exclusiveHead;
    const header = this.walIndex.read();
    if (header && this.head && header.equals(this.head.header)) return this.head.revision;
    const revision = this.readCurrentRevision();
    this.head = header ? { header: Buffer.from(header), revision } : undefined;
    return revision;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen('');
    this.hub.catchUp();
    // Revisions only grow, so a revision not in the future now is not in the future in the compaction.
    const current = this.readCurrentRevision();
    if (revision > current) throw new FutureRevisionError(revision, current);
    if (this.writer) await this.writer.compact(revision);
    else compactLog(this.db, this.statements, revision);
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen('');
    return this.readCompactedRevision();
  }

  /**
   * Brings watches up to date with the log and sends a progress notification now to every watch, or with
   * `key` to the watches of keys under it (a consistent read of one resource need not wake all the others).
   */
  async requestProgress(key?: string): Promise<void> {
    this.assertOpen('');
    this.hub.catchUp();
    this.hub.notifyProgress(false, key);
  }

  /** Commits the writes already queued, then ends every watch and closes the database; later writes fail. */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.writes.close();
    this.closed = true;
    this.hub.closeAll(closedError(''));
    this.walIndex.close();
    this.db.close();
  }

  private enqueue(request: WriteRequest): Promise<KVWriteResult> {
    if (this.closing) return Promise.reject(closedError(request.key));
    return this.writes.push(request);
  }

  /** After a commit (before the writers are answered): counts it and hands its events to the watches. */
  private committed(requests: WriteRequest[], results: KVWriteResult[], transaction?: number): void {
    const events: KVEvent[] = [];
    requests.forEach((request, index) => {
      const event = eventOfWrite(request, results[index] as KVWriteResult);
      if (event) events.push(event);
    });
    if (transaction === undefined || transaction !== this.lastTransaction) this.counters.transactions++;
    this.lastTransaction = transaction;
    this.counters.writes += events.length;
    const last = events.at(-1);
    if (last && this.exclusiveHead !== undefined) this.exclusiveHead = Math.max(this.exclusiveHead, last.entry.modRevision);
    try {
      this.hub.deliverCommitted(events);
    } catch {
      // The writes are committed; the poller delivers whatever this could not.
    }
  }

  /** Deletes expired keys through the normal delete path (one delete event each). */
  private sweepExpired(): void {
    if (this.sweeping || this.closed) return;
    const expired = this.statements.expired.all(this.now(), sweepBatch);
    if (expired.length === 0) return;
    this.sweeping = true;
    const deletes = expired.map((row) => this.delete(row.key.toString('utf8'), row.revision));
    void Promise.allSettled(deletes).then(() => (this.sweeping = false));
  }

  private every(intervalMs: number, task: () => void): void {
    const timer = setInterval(() => {
      if (this.closed) return;
      try {
        task();
      } catch {
        // A busy or failing database: the next tick tries again.
      }
    }, intervalMs);
    timer.unref();
    this.timers.push(timer);
  }

  private readCurrentRevision(): number {
    return this.statements.maxRevision.get()?.revision ?? 0;
  }

  private readCompactedRevision(): number {
    return this.statements.compactedRevision.get()?.value ?? 0;
  }

  /** Resolves the revision of a read: latest for 0/absent, else checked against compaction and the head. */
  private readRevision(requested: number | undefined): { value: number; latest: boolean } {
    const current = this.readCurrentRevision();
    if (requested === undefined || requested <= 0 || requested === current)
      return { value: current, latest: true };
    if (requested > current) throw new FutureRevisionError(requested, current);
    const compacted = this.readCompactedRevision();
    if (requested < compacted) throw new RevisionCompactedError(requested, compacted);
    return { value: requested, latest: false };
  }

  private assertOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}

function writeRequest(
  kind: WriteRequest['kind'],
  key: string,
  value: Uint8Array,
  expectedModRevision: number,
  options: KVWriteOptions,
): WriteRequest {
  // A view, not a copy: the caller hands its bytes over (see KVBackend.update).
  const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const request: WriteRequest = { kind, key, value: bytes, expectedModRevision };
  if (options.ttlSeconds !== undefined) request.ttlSeconds = options.ttlSeconds;
  if (options.condition) request.condition = options.condition;
  if (options.deferrable) request.deferrable = true;
  return request;
}

function closedError(key: string): StorageError {
  return StorageError.unreachable(key, 'the sqlite backend is closed');
}
