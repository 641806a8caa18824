import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend.js';
import { EventRecorder } from './test-support/event-recorder.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const writerScript = fileURLToPath(new URL('./test-support/write-from-another-process.ts', import.meta.url));

describe('SqliteBackend durability', () => {
  let database: ReturnType<typeof temporaryDatabase>;

  beforeEach(() => {
    database = temporaryDatabase();
  });
  afterEach(() => database.remove());

  it('keeps data, revisions and the compacted revision across close and reopen', async () => {
    const first = await SqliteBackend.open({ path: database.path });
    await first.create('/a', bytes('1'), { ttlSeconds: 3600 }); // 2
    await first.create('/b', bytes('1')); // 3
    await first.update('/b', bytes('2'), 3); // 4
    await first.delete('/a', 2); // 5
    await first.compact(4);
    await first.close();

    const second = await SqliteBackend.open({ path: database.path });
    try {
      expect(await second.currentRevision()).toBe(5);
      expect(await second.compactedRevision()).toBe(4);
      const list = await second.range({ key: '/', prefix: true });
      expect(
        list.entries.map((entry) => [entry.key, entry.modRevision, new TextDecoder().decode(entry.value)]),
      ).toEqual([['/b', 4, '2']]);
      expect(await second.create('/c', bytes('x'))).toMatchObject({ succeeded: true, revision: 6 });
      const recorder = new EventRecorder();
      second.watch({ key: '/', prefix: true, startRevision: 4 }, recorder);
      await Promise.resolve();
      expect(recorder.summary()).toEqual(['put /b@4', 'delete /a@5', 'put /c@6']);
    } finally {
      await second.close();
    }
  });

  it('creates the directory of a new database file', async () => {
    const kv = await SqliteBackend.open({ path: database.path.replace(/kv\.db$/, 'nested/deeper/kv.db') });
    try {
      expect(await kv.create('/a', bytes('1'))).toMatchObject({ succeeded: true, revision: 2 });
    } finally {
      await kv.close();
    }
  });

  it('group-commits concurrent writes: distinct revisions, all durable, fewer transactions than writes', async () => {
    const kv = await SqliteBackend.open({ path: database.path });
    await kv.create('/held', bytes('v1'));
    const before = kv.stats;
    const writes = Array.from({ length: 64 }, (_, index) =>
      kv.create(`/k/${String(index).padStart(2, '0')}`, bytes(`${index}`)),
    );
    // Queued in the same tick: one failing compare must fail only itself.
    const conflicting = kv.create('/held', bytes('again'));
    const results = await Promise.all(writes);
    expect(await conflicting).toMatchObject({ succeeded: false, reason: 'conflict' });
    const revisions = results.map((result) => (result.succeeded ? result.revision : 0));
    expect(new Set(revisions).size).toBe(64);
    expect(Math.min(...revisions)).toBe(3);
    expect(Math.max(...revisions)).toBe(66);
    const after = kv.stats;
    expect(after.writes - before.writes).toBe(64);
    expect(after.transactions - before.transactions).toBeLessThan(64);
    await kv.close();

    const reopened = await SqliteBackend.open({ path: database.path });
    try {
      const list = await reopened.range({ key: '/k/', prefix: true });
      expect(list.count).toBe(64);
      expect(list.entries.map((entry) => entry.modRevision).sort((left, right) => left - right)).toEqual(
        [...revisions].sort((left, right) => left - right),
      );
    } finally {
      await reopened.close();
    }
  });

  it('splits a very large burst into bounded transactions and commits queued writes on close', async () => {
    const kv = await SqliteBackend.open({ path: database.path });
    const writes = Array.from({ length: 2500 }, (_, index) => kv.create(`/burst/${index}`, bytes('v')));
    const results = await Promise.all(writes);
    expect(new Set(results.map((result) => result.succeeded && result.revision)).size).toBe(2500);
    expect(kv.stats).toEqual({ transactions: 3, writes: 2500, checkpoints: 0 });
    const queued = kv.create('/queued', bytes('v'));
    await kv.close();
    expect(await queued).toMatchObject({ succeeded: true, revision: 2502 });
    const reopened = await SqliteBackend.open({ path: database.path });
    try {
      expect((await reopened.range({ key: '/', prefix: true, countOnly: true })).count).toBe(2501);
    } finally {
      await reopened.close();
    }
  });

  it('lets a watcher see the writes of a second process on the same file, without duplicates or gaps', async () => {
    const kv = await SqliteBackend.open({
      path: database.path,
      pollIntervalMs: 20,
      progressNotifyIntervalMs: 50,
    });
    try {
      await kv.create('/local/0', bytes('local')); // 2
      const recorder = new EventRecorder();
      kv.watch({ key: '/', prefix: true, startRevision: 2, progressNotify: true }, recorder);
      const child = promisify(execFile)(
        process.execPath,
        ['--conditions=@kapi/source', '--import', 'tsx', writerScript, database.path, '/remote/', '20', '4'],
        { cwd: repositoryRoot },
      );
      let childDone = false;
      void child.finally(() => (childDone = true)).catch(() => {});
      // This process keeps writing while the other one runs, so the two interleave in the log.
      let localCount = 1;
      while (!childDone) {
        await kv.create(`/local/${localCount++}`, bytes('local'));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      const { stdout } = await child;
      const remoteLast = Number(stdout.trim());
      expect(remoteLast).toBeGreaterThan(22);
      const current = await kv.currentRevision();
      expect(current).toBe(1 + localCount + 22);
      await expect.poll(() => recorder.events.length, { timeout: 5000 }).toBe(current - 1);
      expect(recorder.events.map((event) => event.entry.modRevision)).toEqual(
        Array.from({ length: current - 1 }, (_, index) => index + 2),
      );
      const summary = recorder.summary();
      const remote = summary.filter((line) => line.includes('/remote/'));
      const firstRemote = summary.findIndex((line) => line.includes('/remote/'));
      const lastRemote = summary.findLastIndex((line) => line.includes('/remote/'));
      expect(lastRemote - firstRemote + 1).toBeGreaterThan(remote.length); // local writes landed in between
      expect(remote).toHaveLength(22);
      expect(remote.at(-1)).toBe(`delete /remote/0@${remoteLast}`);
      const deletion = recorder.events.find((event) => event.type === 'delete');
      expect(deletion?.previous?.key).toBe('/remote/0');
      await expect.poll(() => recorder.progress.at(-1), { timeout: 5000 }).toBe(current);
      expect(recorder.errors).toEqual([]);
    } finally {
      await kv.close();
    }
  });
});
