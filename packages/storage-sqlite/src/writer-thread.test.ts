import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import Database from 'better-sqlite3';
import type { KVEvent } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (value: Uint8Array | undefined) => (value ? new TextDecoder().decode(value) : undefined);

describe('SqliteBackend with a writer thread', () => {
  let database: ReturnType<typeof temporaryDatabase>;
  let kv: SqliteBackend;

  beforeEach(async () => {
    database = temporaryDatabase();
    kv = await SqliteBackend.open({ path: database.path, writerThread: true });
  });
  afterEach(async () => {
    await kv.close();
    database.remove();
  });

  it('commits concurrent writes with one revision each, in order, and watches see them in revision order', async () => {
    const events: KVEvent[] = [];
    kv.watch({ key: '/k/', prefix: true, startRevision: 0 }, { onEvents: (batch) => events.push(...batch), onError: () => {} });
    await kv.create('/k/seed', bytes('0')); // 2
    const writes = await Promise.all([
      ...Array.from({ length: 100 }, (_, i) => kv.create(`/k/${i}`, bytes(`v${i}`))),
      kv.create('/k/seed', bytes('again')), // a compare failure fails only itself
      kv.update('/k/seed', bytes('1'), 2),
      kv.delete('/k/missing', 5),
    ]);
    const succeeded = writes.filter((result) => result.succeeded);
    expect(succeeded).toHaveLength(101);
    expect(succeeded.map((result) => result.revision)).toEqual(Array.from({ length: 101 }, (_, i) => 3 + i));
    expect(writes[100]).toMatchObject({ succeeded: false, reason: 'conflict', current: { modRevision: 2 } });
    expect(writes[101]).toMatchObject({ succeeded: true, previous: { modRevision: 2 } });
    expect(writes[102]).toMatchObject({ succeeded: false, reason: 'conflict' });
    expect(await kv.currentRevision()).toBe(103);
    expect(text((await kv.get('/k/seed')).entry?.value)).toBe('1');
    await expect.poll(() => events.length).toBe(102);
    expect(events.map((event) => event.entry.modRevision)).toEqual(Array.from({ length: 102 }, (_, i) => 2 + i));
    expect(events.at(-1)).toMatchObject({ type: 'put', entry: { key: '/k/seed' }, previous: { modRevision: 2 } });
    expect(kv.stats.writes).toBe(102);
    // One transaction for the seed, then the burst: one or a few (batches that waited for the thread merge).
    expect(kv.stats.transactions).toBeGreaterThanOrEqual(2);
    expect(kv.stats.transactions).toBeLessThan(10);
  });

  it("passes SQLite's own error back to every write of the failed transaction, and goes on afterwards", async () => {
    // Another connection installs a trigger that makes writes of one key fail inside SQLite.
    const other = new Database(database.path);
    other.exec(`CREATE TRIGGER refuse BEFORE INSERT ON log WHEN NEW.key = CAST('/bad' AS BLOB)
                BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END`);
    other.close();
    const together = await Promise.allSettled([kv.create('/good', bytes('1')), kv.create('/bad', bytes('2'))]);
    for (const outcome of together) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { message: 'refused by trigger', code: 'SQLITE_CONSTRAINT_TRIGGER' } });
    }
    expect((await kv.get('/good')).entry).toBeUndefined();
    expect(await kv.create('/good', bytes('1'))).toMatchObject({ succeeded: true });
  });

  it('is healthy while open with a live writer thread, and not once closed', async () => {
    expect(() => kv.checkHealth()).not.toThrow();
    await kv.close();
    expect(() => kv.checkHealth()).toThrow(/closed/);
  });

  it('commits the writes queued before close, refuses later ones, and leaves them on disk', async () => {
    const queued = Array.from({ length: 20 }, (_, i) => kv.create(`/c/${i}`, bytes(String(i))));
    const closing = kv.close();
    await expect(kv.create('/late', bytes('x'))).rejects.toThrow(/closed/);
    await closing;
    expect((await Promise.all(queued)).every((result) => result.succeeded)).toBe(true);
    const reopened = await SqliteBackend.open({ path: database.path });
    try {
      expect((await reopened.range({ key: '/c/', prefix: true })).count).toBe(20);
    } finally {
      await reopened.close();
    }
  });

  it('compacts on the writer thread and still refuses a future revision', async () => {
    await kv.create('/x', bytes('1'));
    await kv.update('/x', bytes('2'), 2);
    await expect(kv.compact(10)).rejects.toThrow(/future|10/);
    await kv.compact(3);
    expect(await kv.compactedRevision()).toBe(3);
    await expect(kv.get('/x', { revision: 2 })).rejects.toThrow();
  });

  it('copies the WAL back into the database on the checkpoint thread, which ends on close', async () => {
    // Without the checkpoint thread nothing copies these few WAL pages back (SQLite waits for 1000).
    const unchecked = temporaryDatabase();
    const plain = await SqliteBackend.open({ path: unchecked.path, writerThread: true, checkpointIntervalMs: 0 });
    try {
      const value = bytes('x'.repeat(2048));
      await Promise.all(Array.from({ length: 100 }, (_, i) => kv.create(`/w/${i}`, value)));
      await Promise.all(Array.from({ length: 100 }, (_, i) => plain.create(`/w/${i}`, value)));
      await expect.poll(() => walProgress(database.path), { timeout: 3000 }).toMatchObject({ pending: 0 });
      expect(walProgress(database.path).frames).toBeGreaterThan(0);
      expect(kv.stats.checkpoints).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(walProgress(unchecked.path).pending).toBeGreaterThan(0);
      expect(plain.stats.checkpoints).toBe(0);
    } finally {
      await plain.close();
      unchecked.remove();
    }
    const runs = kv.stats.checkpoints;
    await kv.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(kv.stats.checkpoints).toBe(runs);
  });

  it('cannot be combined with exclusive mode or an in-memory database', async () => {
    await expect(SqliteBackend.open({ path: database.path, writerThread: true, exclusive: true })).rejects.toThrow(/cannot be exclusive/);
    await expect(SqliteBackend.open({ path: ':memory:', writerThread: true })).rejects.toThrow(/database file path/);
  });
});

/**
 * The WAL's frames and those not yet copied back into the database, from the WAL index (`-shm`, in the
 * machine's byte order): `mxFrame` in the header, `nBackfill` right after its two copies.
 */
function walProgress(path: string): { frames: number; pending: number } {
  const index = readFileSync(`${path}-shm`);
  const read = (offset: number) => (endianness() === 'LE' ? index.readUInt32LE(offset) : index.readUInt32BE(offset));
  const frames = read(16);
  return { frames, pending: frames - read(96) };
}
