import { FutureRevisionError, RevisionCompactedError, type KVEvent } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);
const text = (value: Uint8Array | undefined) => (value ? new TextDecoder().decode(value) : undefined);

describe('SqliteBackend KV semantics', () => {
  let database: ReturnType<typeof temporaryDatabase>;
  let kv: SqliteBackend;
  let clock = 1_000_000;

  beforeEach(async () => {
    database = temporaryDatabase();
    clock = 1_000_000;
    kv = await SqliteBackend.open({ path: database.path, ttlSweepIntervalMs: 20, now: () => clock });
  });
  afterEach(async () => {
    await kv.close();
    database.remove();
  });

  it('creates, reads and refuses a second create with the current entry', async () => {
    // Like etcd, an empty store is at revision 1.
    expect(await kv.currentRevision()).toBe(1);
    const created = await kv.create('/a', bytes('one'));
    expect(created).toEqual({ succeeded: true, revision: 2 });
    const got = await kv.get('/a');
    expect(got.revision).toBe(2);
    expect(got.entry).toMatchObject({ key: '/a', createRevision: 2, modRevision: 2 });
    expect(text(got.entry?.value)).toBe('one');
    const again = await kv.create('/a', bytes('two'));
    expect(again).toMatchObject({
      succeeded: false,
      reason: 'conflict',
      revision: 2,
      current: { modRevision: 2 },
    });
    expect(await kv.get('/missing')).toEqual({ revision: 2 });
  });

  it('updates and deletes only at the expected modRevision', async () => {
    await kv.create('/a', bytes('one')); // 2
    expect(await kv.update('/a', bytes('two'), 7)).toMatchObject({
      succeeded: false,
      reason: 'conflict',
      revision: 2,
    });
    const updated = await kv.update('/a', bytes('two'), 2);
    expect(updated).toMatchObject({ succeeded: true, revision: 3, previous: { modRevision: 2 } });
    expect((await kv.get('/a')).entry).toMatchObject({ createRevision: 2, modRevision: 3 });
    expect(await kv.delete('/a', 2)).toMatchObject({
      succeeded: false,
      reason: 'conflict',
      current: { modRevision: 3 },
    });
    const deleted = await kv.delete('/a', 3);
    expect(deleted).toMatchObject({ succeeded: true, revision: 4, previous: { modRevision: 3 } });
    expect(text(deleted.succeeded ? deleted.previous?.value : undefined)).toBe('two');
    expect((await kv.get('/a')).entry).toBeUndefined();
    expect(await kv.update('/a', bytes('x'), 3)).toEqual({
      succeeded: false,
      reason: 'conflict',
      revision: 4,
    });
    expect(await kv.delete('/a', 3)).toEqual({ succeeded: false, reason: 'conflict', revision: 4 });
    // Re-creation starts a new incarnation.
    await kv.create('/a', bytes('again'));
    expect((await kv.get('/a')).entry).toMatchObject({ createRevision: 5, modRevision: 5 });
  });

  it('lists non-ASCII keys (read back as text by a current range) as the past range and GET spell them', async () => {
    const keys = ['/p/a', '/p/é', '/p/名前', '/p/😀', '/p/z\u0000x'];
    for (const key of keys) await kv.create(key, bytes(key));
    const head = await kv.currentRevision();
    const sorted = [...keys].sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right)));
    const latest = await kv.range({ key: '/p/', prefix: true });
    expect(latest.entries.map((entry) => entry.key)).toEqual(sorted);
    expect(latest.entries.map((entry) => text(entry.value))).toEqual(sorted);
    // Pages of two at the head revision continue right after the last key (remembered as its bytes).
    const paged: string[] = [];
    let startKey: string | undefined;
    for (;;) {
      const page = await kv.range({ key: '/p/', prefix: true, limit: 2, revision: head, ...(startKey ? { startKey } : {}) });
      paged.push(...page.entries.map((entry) => entry.key));
      if (!page.more) break;
      expect(page.count).toBe(sorted.length - paged.length + page.entries.length);
      startKey = `${page.entries[page.entries.length - 1]?.key ?? ''}\u0000`;
    }
    expect(paged).toEqual(sorted);
    await kv.create('/q', bytes('later'));
    expect((await kv.range({ key: '/p/', prefix: true, revision: head })).entries.map((entry) => entry.key)).toEqual(sorted);
    for (const key of keys) expect((await kv.get(key)).entry?.key).toBe(key);
  });

  it('checks write conditions on another key atomically', async () => {
    await kv.create('/version', bytes('v1'));
    const condition = { key: '/version', value: 'v2' };
    expect(await kv.create('/a', bytes('x'), { condition })).toEqual({
      succeeded: false,
      reason: 'condition',
      revision: 2,
    });
    expect(await kv.create('/a', bytes('x'), { condition: { key: '/nothing', value: '' } })).toMatchObject({
      succeeded: false,
      reason: 'condition',
    });
    expect(await kv.create('/a', bytes('x'), { condition: { key: '/version', value: 'v1' } })).toMatchObject({
      succeeded: true,
      revision: 3,
    });
    expect(await kv.update('/a', bytes('y'), 3, { condition })).toMatchObject({
      succeeded: false,
      reason: 'condition',
      current: { modRevision: 3 },
    });
    expect(await kv.delete('/a', 3, { condition })).toMatchObject({ succeeded: false, reason: 'condition' });
    expect(await kv.delete('/a', 3, { condition: { key: '/version', value: 'v1' } })).toMatchObject({
      succeeded: true,
    });
  });

  it('ranges in byte order with prefix, startKey, limit, more and count', async () => {
    for (const key of ['/p/b', '/p/a', '/p/c', '/p/\u00e9', '/p/\u{1f600}', '/p/\uffee', '/q/a', '/p']) {
      await kv.create(key, bytes(key));
    }
    const all = await kv.range({ key: '/p/', prefix: true });
    // UTF-8 byte order puts U+FFEE (EF BF AE) before U+1F600 (F0 9F 98 80), unlike UTF-16 order.
    expect(all.entries.map((entry) => entry.key)).toEqual([
      '/p/a',
      '/p/b',
      '/p/c',
      '/p/\u00e9',
      '/p/\uffee',
      '/p/\u{1f600}',
    ]);
    expect(all).toMatchObject({ more: false, count: 6, revision: 9 });
    const page = await kv.range({ key: '/p/', prefix: true, limit: 2 });
    expect(page.entries.map((entry) => entry.key)).toEqual(['/p/a', '/p/b']);
    expect(page).toMatchObject({ more: true, count: 6 });
    const next = await kv.range({ key: '/p/', prefix: true, startKey: '/p/b\u0000', limit: 2 });
    expect(next.entries.map((entry) => entry.key)).toEqual(['/p/c', '/p/\u00e9']);
    expect(next).toMatchObject({ more: true, count: 4 });
    const counted = await kv.range({ key: '/p/', prefix: true, countOnly: true });
    expect(counted).toEqual({ entries: [], more: false, count: 6, revision: 9 });
    const exact = await kv.range({ key: '/p', prefix: false });
    expect(exact.entries.map((entry) => entry.key)).toEqual(['/p']);
    const everything = await kv.range({ key: '', prefix: true });
    expect(everything.count).toBe(8);
    expect(await kv.range({ key: '/p/', prefix: true, startKey: '/z' })).toMatchObject({
      entries: [],
      count: 0,
    });
  });


  it('counts the keys left after each page of a paged read at one revision, whatever is written meanwhile', async () => {
    const keys = ['/p/a', '/p/b', '/p/\u00e9', '/p/\u{1f600}', '/p/c', '/p/d', '/p/e'];
    for (const key of keys) await kv.create(key, bytes(key));
    const { revision } = await kv.range({ key: '/p/', prefix: true, limit: 2 });
    const sorted = [...keys].sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right)));
    const pages: Array<{ keys: string[]; count: number; more: boolean }> = [];
    let startKey: string | undefined;
    for (;;) {
      const page = await kv.range({ key: '/p/', prefix: true, limit: 2, revision, ...(startKey ? { startKey } : {}) });
      pages.push({ keys: page.entries.map((entry) => entry.key), count: page.count, more: page.more });
      // Writes after the paged revision change nothing the pages report.
      await kv.create(`/p/${pages.length}-new`, bytes('x'));
      const head = await kv.get('/p/a');
      if (head.entry) await kv.delete('/p/a', head.entry.modRevision);
      if (!page.more) break;
      startKey = `${page.entries[page.entries.length - 1]?.key ?? ''}\u0000`;
    }
    expect(pages).toEqual([
      { keys: sorted.slice(0, 2), count: 7, more: true },
      { keys: sorted.slice(2, 4), count: 5, more: true },
      { keys: sorted.slice(4, 6), count: 3, more: true },
      { keys: sorted.slice(6), count: 1, more: false },
    ]);
    // The same continue read again gives the same answer; a count-only read of a later start agrees.
    const again = await kv.range({ key: '/p/', prefix: true, limit: 2, revision, startKey: `${sorted[1] ?? ''}\u0000` });
    expect({ keys: again.entries.map((entry) => entry.key), count: again.count }).toEqual({ keys: sorted.slice(2, 4), count: 5 });
    expect((await kv.range({ key: '/p/', prefix: true, revision, startKey: `${sorted[3] ?? ''}\u0000`, countOnly: true })).count).toBe(3);
  });
  it('reads past revisions and fails on compacted and future ones', async () => {
    await kv.create('/p/a', bytes('a1')); // 2
    await kv.create('/p/b', bytes('b1')); // 3
    await kv.update('/p/a', bytes('a2'), 2); // 4
    await kv.delete('/p/b', 3); // 5
    await kv.create('/p/c', bytes('c1')); // 6
    expect(await kv.range({ key: '/p/', prefix: true, revision: 1 })).toEqual({
      entries: [],
      more: false,
      count: 0,
      revision: 1,
    });
    const at2 = await kv.range({ key: '/p/', prefix: true, revision: 3 });
    expect(at2.entries.map((entry) => [entry.key, text(entry.value)])).toEqual([
      ['/p/a', 'a1'],
      ['/p/b', 'b1'],
    ]);
    expect(at2).toMatchObject({ count: 2, revision: 3 });
    const at4 = await kv.range({ key: '/p/', prefix: true, revision: 5, limit: 5 });
    expect(at4.entries.map((entry) => [entry.key, text(entry.value)])).toEqual([['/p/a', 'a2']]);
    expect(text((await kv.get('/p/b', { revision: 4 })).entry?.value)).toBe('b1');
    expect((await kv.get('/p/b', { revision: 5 })).entry).toBeUndefined();
    const paged = await kv.range({ key: '/p/', prefix: true, revision: 4, limit: 1 });
    expect(paged).toMatchObject({ more: true, count: 2 });
    await expect(kv.get('/p/a', { revision: 7 })).rejects.toBeInstanceOf(FutureRevisionError);
    await expect(kv.range({ key: '/p/', prefix: true, revision: 9 })).rejects.toBeInstanceOf(
      FutureRevisionError,
    );

    await kv.compact(5);
    expect(await kv.compactedRevision()).toBe(5);
    await expect(kv.get('/p/a', { revision: 4 })).rejects.toBeInstanceOf(RevisionCompactedError);
    await expect(kv.range({ key: '/p/', prefix: true, revision: 3 })).rejects.toThrow(/has been compacted/);
    const at4Again = await kv.range({ key: '/p/', prefix: true, revision: 5 });
    expect(at4Again.entries.map((entry) => [entry.key, text(entry.value)])).toEqual([['/p/a', 'a2']]);
    expect((await kv.range({ key: '/p/', prefix: true })).entries.map((entry) => entry.key)).toEqual([
      '/p/a',
      '/p/c',
    ]);
    await kv.compact(3); // older than the compacted revision: nothing to do
    expect(await kv.compactedRevision()).toBe(5);
    await expect(kv.compact(99)).rejects.toBeInstanceOf(FutureRevisionError);
  });

  it('keeps the revision counter after compacting away a trailing delete', async () => {
    await kv.create('/a', bytes('a')); // 2
    await kv.delete('/a', 2); // 3
    await kv.compact(3);
    expect(await kv.currentRevision()).toBe(3);
    expect(await kv.create('/b', bytes('b'))).toMatchObject({ succeeded: true, revision: 4 });
  });

  it('expires keys with a TTL through a delete event', async () => {
    const events: KVEvent[] = [];
    kv.watch(
      { key: '/lease/', prefix: true, startRevision: 0 },
      { onEvents: (batch) => events.push(...batch), onError: () => {} },
    );
    await kv.create('/lease/a', bytes('a'), { ttlSeconds: 10 });
    await kv.create('/lease/b', bytes('b'));
    expect((await kv.get('/lease/a')).entry?.ttlSeconds).toBe(10);
    clock += 4_000;
    expect((await kv.get('/lease/a')).entry?.ttlSeconds).toBe(6);
    clock += 6_000;
    await expect.poll(async () => (await kv.get('/lease/a')).entry).toBeUndefined();
    expect((await kv.get('/lease/b')).entry).toBeDefined();
    expect(events.map((event) => [event.type, event.entry.key, event.entry.modRevision])).toEqual([
      ['put', '/lease/a', 2],
      ['put', '/lease/b', 3],
      ['delete', '/lease/a', 4],
    ]);
    expect(events[2]?.previous?.modRevision).toBe(2);
  });

  it('rejects operations after close', async () => {
    await kv.close();
    await expect(kv.get('/a')).rejects.toThrow(/closed/);
    await expect(kv.create('/a', bytes('a'))).rejects.toThrow(/closed/);
  });
});
