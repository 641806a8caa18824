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
    watching = await SqliteBackend.open({ path: database.path, pollIntervalMs: 60_000, progressNotifyIntervalMs: 60_000 });
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
    await writing.create('/remote/a', bytes('1')); // 1, not yet polled
    await writing.update('/remote/a', bytes('2'), 1); // 2
    await watching.create('/local/a', bytes('1')); // 3: the commit finds 1..2 undelivered and reads them first
    expect(recorder.summary()).toEqual(['put /remote/a@1', 'put /remote/a@2', 'put /local/a@3']);
    expect(recorder.events[1]?.previous?.modRevision).toBe(1);
    await writing.delete('/remote/a', 2); // 4
    await watching.requestProgress(); // catches up before claiming progress
    expect(recorder.summary().at(-1)).toBe('delete /remote/a@4');
    expect(recorder.progress).toEqual([4]);
    expect(await watching.get('/remote/a', { revision: 2 })).toMatchObject({ entry: { modRevision: 2 } });
  });

  it('fails watches that missed revisions the other instance compacted away', async () => {
    const recorder = new EventRecorder();
    watching.watch({ key: '/', prefix: true, startRevision: 0 }, recorder);
    await Promise.resolve();
    await writing.create('/a', bytes('1'));
    await writing.update('/a', bytes('2'), 1);
    await writing.update('/a', bytes('3'), 2);
    await writing.compact(3);
    await watching.requestProgress();
    expect(recorder.errors[0]).toBeInstanceOf(RevisionCompactedError);
    expect(recorder.events).toEqual([]);
    expect(recorder.progress).toEqual([]);
  });

  it('compaction removes superseded rows and keeps what reads at or after it need', async () => {
    await writing.create('/a', bytes('1')); // 1
    await writing.update('/a', bytes('2'), 1); // 2
    await writing.create('/b', bytes('1')); // 3
    await writing.delete('/b', 3); // 4
    await writing.create('/c', bytes('1')); // 5
    await writing.update('/a', bytes('3'), 2); // 6
    await writing.compact(5);
    const raw = new Database(database.path, { readonly: true });
    try {
      const revisions = raw.prepare('SELECT revision FROM log ORDER BY revision').all() as Array<{ revision: number }>;
      expect(revisions.map((row) => row.revision)).toEqual([2, 5, 6]);
    } finally {
      raw.close();
    }
    const recorder = new EventRecorder();
    watching.watch({ key: '/', prefix: true, startRevision: 5 }, recorder);
    await Promise.resolve();
    expect(recorder.events).toEqual([]); // replay stops at what this instance delivered; the poller does the rest
    await watching.requestProgress();
    expect(recorder.summary()).toEqual(['put /c@5', 'put /a@6']);
    expect(recorder.events[1]?.previous?.modRevision).toBe(2);
  });
});
