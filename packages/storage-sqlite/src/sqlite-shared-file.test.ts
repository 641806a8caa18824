import Database from 'better-sqlite3';
import { RevisionCompactedError } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend.js';
import { EventRecorder } from './test-support/event-recorder.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Two backends on one file behave like two processes: each sees the other's writes only through the log. */
describe('SqliteBackend instances sharing one file', () => {
  let database: ReturnType<typeof temporaryDatabase>;
  let watching: SqliteBackend;
  let writing: SqliteBackend;

  beforeEach(async () => {
    database = temporaryDatabase();
    watching = await SqliteBackend.open({
      path: database.path,
      pollIntervalMs: 60_000,
      progressNotifyIntervalMs: 60_000,
    });
    writing = await SqliteBackend.open({ path: database.path, pollIntervalMs: 60_000 });
  });
  afterEach(async () => {
    await watching.close();
    await writing.close();
    database.remove();
  });

  it('delivers the other writer rows before its own, and progress only after both', async () => {
    const recorder = new EventRecorder();
    watching.watch({ key: '/', prefix: true, startRevision: 0 }, recorder);
    await writing.create('/remote/a', bytes('1')); // 2, not yet polled
    await writing.update('/remote/a', bytes('2'), 2); // 3
    await watching.create('/local/a', bytes('1')); // 4: the commit finds 2..3 undelivered and reads them first
    expect(recorder.summary()).toEqual(['put /remote/a@2', 'put /remote/a@3', 'put /local/a@4']);
    expect(recorder.events[1]?.previous?.modRevision).toBe(2);
    await writing.delete('/remote/a', 3); // 5
    await watching.requestProgress(); // catches up before claiming progress
    expect(recorder.summary().at(-1)).toBe('delete /remote/a@5');
    expect(recorder.progress).toEqual([5]);
    expect(await watching.get('/remote/a', { revision: 3 })).toMatchObject({ entry: { modRevision: 3 } });
  });

  it('sees the other instance commits in currentRevision at once, across a WAL restart', async () => {
    const start = await watching.currentRevision();
    expect(await watching.currentRevision()).toBe(start);
    await writing.create('/x', bytes('1'));
    expect(await watching.currentRevision()).toBe(start + 1);
    await writing.update('/x', bytes('2'), start + 1);
    expect(await watching.currentRevision()).toBe(start + 2);
    expect(await watching.currentRevision()).toBe(start + 2);
    // A truncating checkpoint empties the WAL; the next commit starts it again with new salts.
    const third = new Database(database.path);
    third.pragma('wal_checkpoint(TRUNCATE)');
    third.close();
    await writing.create('/y', bytes('1'));
    expect(await watching.currentRevision()).toBe(start + 3);
    await watching.create('/z', bytes('1'));
    expect(await writing.currentRevision()).toBe(start + 4);
    expect(await watching.currentRevision()).toBe(start + 4);
  });

  it('fails watches that missed revisions the other instance compacted away', async () => {
    const recorder = new EventRecorder();
    watching.watch({ key: '/', prefix: true, startRevision: 0 }, recorder);
    await Promise.resolve();
    await writing.create('/a', bytes('1'));
    await writing.update('/a', bytes('2'), 2);
    await writing.update('/a', bytes('3'), 3);
    await writing.compact(4);
    await watching.requestProgress();
    expect(recorder.errors[0]).toBeInstanceOf(RevisionCompactedError);
    expect(recorder.events).toEqual([]);
    expect(recorder.progress).toEqual([]);
  });

  it('compaction removes superseded rows and keeps what reads at or after it need', async () => {
    await writing.create('/a', bytes('1')); // 2
    await writing.update('/a', bytes('2'), 2); // 3
    await writing.create('/b', bytes('1')); // 4
    await writing.delete('/b', 4); // 5
    await writing.create('/c', bytes('1')); // 6
    await writing.update('/a', bytes('3'), 3); // 7
    await writing.compact(6);
    const raw = new Database(database.path, { readonly: true });
    try {
      const revisions = raw.prepare('SELECT revision FROM log ORDER BY revision').all() as Array<{
        revision: number;
      }>;
      expect(revisions.map((row) => row.revision)).toEqual([3, 6, 7]);
    } finally {
      raw.close();
    }
    const recorder = new EventRecorder();
    watching.watch({ key: '/', prefix: true, startRevision: 6 }, recorder);
    await Promise.resolve();
    expect(recorder.events).toEqual([]); // replay stops at what this instance delivered; the poller does the rest
    await watching.requestProgress();
    expect(recorder.summary()).toEqual(['put /c@6', 'put /a@7']);
    expect(recorder.events[1]?.previous?.modRevision).toBe(3);
  });
});

describe('SqliteBackend with exclusive: true', () => {
  it('keeps other connections out while open, tracks its revision and reopens with it', async () => {
    const database = temporaryDatabase();
    try {
      const kv = await SqliteBackend.open({ path: database.path, exclusive: true });
      const start = await kv.currentRevision();
      await kv.create('/a', bytes('1'));
      await kv.update('/a', bytes('2'), start + 1);
      await kv.delete('/a', start + 2);
      expect(await kv.currentRevision()).toBe(start + 3);
      const other = new Database(database.path, { timeout: 50 });
      expect(() => other.prepare('SELECT count(*) FROM log').get()).toThrow(/locked/);
      other.close();
      await expect(SqliteBackend.open({ path: database.path, busyTimeoutMs: 50 })).rejects.toThrow(
        `the SQLite database ${database.path} is locked by another process that holds it exclusively`,
      );
      await kv.close();
      const reopened = await SqliteBackend.open({ path: database.path, exclusive: true });
      expect(await reopened.currentRevision()).toBe(start + 3);
      await reopened.close();
      const shared = await SqliteBackend.open({ path: database.path });
      expect(await shared.currentRevision()).toBe(start + 3);
      await shared.close();
    } finally {
      database.remove();
    }
  });
});
