import { FutureRevisionError, RevisionCompactedError, type KVEvent } from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBackend } from './memory-backend.js';
import { createMemoryStorage } from './create-memory-storage.js';

const bytes = (text: string) => Buffer.from(text);
const text = (value: Uint8Array | undefined) => (value ? Buffer.from(value).toString() : undefined);

/** Collects what a watch delivers. */
function collector() {
  const events: KVEvent[] = [];
  const progress: number[] = [];
  const errors: Error[] = [];
  const listener = {
    onEvents: (batch: KVEvent[]) => events.push(...batch),
    onProgress: (revision: number) => progress.push(revision),
    onError: (error: Error) => errors.push(error),
  };
  return { events, progress, errors, listener };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('MemoryBackend', () => {
  let backend: MemoryBackend;
  afterEach(async () => {
    await backend?.close();
  });

  it('starts at revision 1 and advances by one per write', async () => {
    backend = new MemoryBackend();
    expect(await backend.currentRevision()).toBe(1);
    const created = await backend.create('/a', bytes('1'));
    expect(created).toEqual({ succeeded: true, revision: 2 });
    const updated = await backend.update('/a', bytes('2'), 2);
    expect(updated.succeeded && updated.revision).toBe(3);
    const deleted = await backend.delete('/a', 3);
    expect(deleted.succeeded && deleted.revision).toBe(4);
    expect(deleted.succeeded && text(deleted.previous?.value)).toBe('2');
    expect(await backend.currentRevision()).toBe(4);
    expect((await backend.get('/a')).entry).toBeUndefined();
  });

  it('keeps createRevision across updates and resets it after a delete', async () => {
    backend = new MemoryBackend();
    await backend.create('/a', bytes('1'));
    await backend.update('/a', bytes('2'), 2);
    expect((await backend.get('/a')).entry).toMatchObject({ createRevision: 2, modRevision: 3 });
    await backend.delete('/a', 3);
    await backend.create('/a', bytes('3'));
    expect((await backend.get('/a')).entry).toMatchObject({ createRevision: 5, modRevision: 5 });
  });

  it('reports conflicts with the current entry', async () => {
    backend = new MemoryBackend();
    await backend.create('/a', bytes('1'));
    const again = await backend.create('/a', bytes('x'));
    expect(again).toMatchObject({ succeeded: false, reason: 'conflict', revision: 2 });
    expect(!again.succeeded && text(again.current?.value)).toBe('1');
    expect(await backend.update('/a', bytes('x'), 1)).toMatchObject({ succeeded: false, reason: 'conflict', current: { modRevision: 2 } });
    expect(await backend.delete('/a', 7)).toMatchObject({ succeeded: false, reason: 'conflict' });
    const missing = await backend.update('/missing', bytes('x'), 2);
    expect(missing).toEqual({ succeeded: false, reason: 'conflict', revision: 2 });
    expect(await backend.currentRevision()).toBe(2);
  });

  it('reads older revisions until they are compacted', async () => {
    backend = new MemoryBackend();
    await backend.create('/p/a', bytes('a1')); // 2
    await backend.create('/p/b', bytes('b1')); // 3
    await backend.update('/p/a', bytes('a2'), 2); // 4
    await backend.delete('/p/b', 3); // 5
    expect(text((await backend.get('/p/a', { revision: 3 })).entry?.value)).toBe('a1');
    expect((await backend.get('/p/b', { revision: 2 })).entry).toBeUndefined();
    const old = await backend.range({ key: '/p/', prefix: true, revision: 3 });
    expect(old.entries.map((entry) => text(entry.value))).toEqual(['a1', 'b1']);
    expect(old.revision).toBe(3);
    const latest = await backend.range({ key: '/p/', prefix: true });
    expect(latest.entries.map((entry) => text(entry.value))).toEqual(['a2']);
    await expect(backend.get('/p/a', { revision: 6 })).rejects.toBeInstanceOf(FutureRevisionError);
    await backend.compact(4);
    expect(await backend.compactedRevision()).toBe(4);
    await expect(backend.get('/p/a', { revision: 3 })).rejects.toBeInstanceOf(RevisionCompactedError);
    await expect(backend.range({ key: '/p/', prefix: true, revision: 2 })).rejects.toBeInstanceOf(RevisionCompactedError);
    expect(text((await backend.get('/p/a', { revision: 4 })).entry?.value)).toBe('a2');
    expect((await backend.range({ key: '/p/', prefix: true })).entries.map((entry) => entry.key)).toEqual(['/p/a']);
    await backend.compact(2); // already compacted: no-op
    await expect(backend.compact(100)).rejects.toBeInstanceOf(FutureRevisionError);
  });

  it('ranges with startKey, limit, count and countOnly', async () => {
    backend = new MemoryBackend();
    for (const key of ['/p/c', '/p/a', '/p/b', '/pz/x', '/o/x']) await backend.create(key, bytes(key));
    const page = await backend.range({ key: '/p/', prefix: true, limit: 2 });
    expect(page.entries.map((entry) => entry.key)).toEqual(['/p/a', '/p/b']);
    expect(page).toMatchObject({ more: true, count: 3 });
    const rest = await backend.range({ key: '/p/', prefix: true, startKey: '/p/b\u0000', limit: 2 });
    expect(rest.entries.map((entry) => entry.key)).toEqual(['/p/c']);
    expect(rest).toMatchObject({ more: false, count: 1 });
    const counted = await backend.range({ key: '/p', prefix: true, countOnly: true });
    expect(counted).toMatchObject({ entries: [], count: 4 });
    const exact = await backend.range({ key: '/p/a', prefix: false });
    expect(exact.entries.map((entry) => entry.key)).toEqual(['/p/a']);
  });

  it('keeps key order across interleaved creates, ranges, deletes and compaction', async () => {
    backend = new MemoryBackend();
    const keys = (result: { entries: Array<{ key: string }> }) => result.entries.map((entry) => entry.key);
    await backend.create('/p/m', bytes('m'));
    await backend.create('/p/c', bytes('c'));
    expect(keys(await backend.range({ key: '/p/', prefix: true }))).toEqual(['/p/c', '/p/m']);
    await backend.create('/p/z', bytes('z'));
    await backend.create('/p/a', bytes('a'));
    const removed = await backend.get('/p/c');
    await backend.delete('/p/c', removed.entry?.modRevision ?? 0);
    expect(keys(await backend.range({ key: '/p/', prefix: true }))).toEqual(['/p/a', '/p/m', '/p/z']);
    await backend.compact(await backend.currentRevision());
    await backend.create('/p/c', bytes('c2'));
    await backend.create('/p/b', bytes('b'));
    expect(keys(await backend.range({ key: '/p/', prefix: true }))).toEqual(['/p/a', '/p/b', '/p/c', '/p/m', '/p/z']);
    expect(keys(await backend.range({ key: '/p/', prefix: true, startKey: '/p/c' }))).toEqual(['/p/c', '/p/m', '/p/z']);
  });

  it('applies write conditions on the current UTF-8 value of another key', async () => {
    backend = new MemoryBackend();
    await backend.create('/vote', bytes('v1'));
    expect(await backend.create('/a', bytes('x'), { condition: { key: '/vote', value: 'v2' } })).toMatchObject({
      succeeded: false,
      reason: 'condition',
    });
    expect(await backend.create('/a', bytes('x'), { condition: { key: '/missing', value: '' } })).toMatchObject({
      succeeded: false,
      reason: 'condition',
    });
    expect(await backend.create('/a', bytes('x'), { condition: { key: '/vote', value: 'v1' } })).toMatchObject({ succeeded: true });
    expect(await backend.update('/a', bytes('y'), 3, { condition: { key: '/vote', value: 'no' } })).toMatchObject({ reason: 'condition' });
    expect(await backend.delete('/a', 3, { condition: { key: '/vote', value: 'v1' } })).toMatchObject({ succeeded: true });
  });

  it('replays history to a watch, then delivers live events in order', async () => {
    backend = new MemoryBackend();
    await backend.create('/p/a', bytes('1')); // 2
    await backend.create('/other', bytes('o')); // 3
    await backend.update('/p/a', bytes('2'), 2); // 4
    const { events, listener } = collector();
    const watch = backend.watch({ key: '/p/', prefix: true, startRevision: 2 }, listener);
    await backend.delete('/p/a', 4); // 5
    await tick();
    expect(events.map((event) => [event.type, event.entry.modRevision])).toEqual([
      ['put', 2],
      ['put', 4],
      ['delete', 5],
    ]);
    expect(events[0]?.previous).toBeUndefined();
    expect(text(events[1]?.previous?.value)).toBe('1');
    expect(text(events[2]?.previous?.value)).toBe('2');
    expect(events[2]?.entry.value.byteLength).toBe(0);
    watch.cancel();
    await backend.create('/p/b', bytes('b'));
    await tick();
    expect(events).toHaveLength(3);
  });

  it('fails a watch from a compacted revision through onError', async () => {
    backend = new MemoryBackend();
    await backend.create('/a', bytes('1'));
    await backend.update('/a', bytes('2'), 2);
    await backend.compact(3);
    const { events, errors, listener } = collector();
    backend.watch({ key: '/a', prefix: false, startRevision: 2 }, listener);
    await tick();
    expect(events).toEqual([]);
    expect(errors[0]).toBeInstanceOf(RevisionCompactedError);
    expect((errors[0] as RevisionCompactedError).compactedRevision).toBe(3);
  });

  it('sends periodic progress only to watches that asked, after their events', async () => {
    backend = new MemoryBackend({ progressNotifyIntervalMs: 20 });
    const asked = collector();
    const silent = collector();
    backend.watch({ key: '/p/', prefix: true, startRevision: 0, progressNotify: true }, asked.listener);
    backend.watch({ key: '/p/', prefix: true, startRevision: 0 }, silent.listener);
    await backend.create('/q/x', bytes('x'));
    await new Promise((resolve) => setTimeout(resolve, 70));
    expect(asked.progress.length).toBeGreaterThan(0);
    expect(asked.progress[asked.progress.length - 1]).toBe(2);
    expect(silent.progress).toEqual([]);
    await backend.requestProgress();
    await tick();
    expect(silent.progress).toEqual([2]);
  });

  it('delivers a requested progress notification only after the replayed events', async () => {
    backend = new MemoryBackend();
    for (let index = 0; index < 50; index++) await backend.create(`/p/${index}`, bytes('x'));
    const order: string[] = [];
    backend.watch(
      { key: '/p/', prefix: true, startRevision: 2 },
      {
        onEvents: (batch) => order.push(`events:${batch.length}`),
        onProgress: (revision) => order.push(`progress:${revision}`),
        onError: () => order.push('error'),
      },
    );
    await backend.requestProgress();
    await tick();
    expect(order).toEqual(['events:50', 'progress:51']);
  });

  it('expires keys written with a TTL as a delete event with a new revision', async () => {
    backend = new MemoryBackend();
    const { events, listener } = collector();
    backend.watch({ key: '/t', prefix: false, startRevision: 0 }, listener);
    await backend.create('/t', bytes('x'), { ttlSeconds: 0.05 });
    expect((await backend.get('/t')).entry?.ttlSeconds).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await backend.get('/t')).entry).toBeUndefined();
    expect(events.map((event) => [event.type, event.entry.modRevision])).toEqual([
      ['put', 2],
      ['delete', 3],
    ]);
  });

  it('drops the TTL when a key is rewritten without one', async () => {
    backend = new MemoryBackend();
    await backend.create('/t', bytes('x'), { ttlSeconds: 0.05 });
    await backend.update('/t', bytes('y'), 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(text((await backend.get('/t')).entry?.value)).toBe('y');
  });

  it('compacts automatically to the revision seen one interval earlier', async () => {
    backend = new MemoryBackend({ compactionIntervalMs: 20 });
    await backend.create('/a', bytes('1'));
    await backend.update('/a', bytes('2'), 2);
    await new Promise((resolve) => setTimeout(resolve, 90));
    expect(await backend.compactedRevision()).toBe(3);
    expect(text((await backend.get('/a')).entry?.value)).toBe('2');
    await expect(backend.get('/a', { revision: 2 })).rejects.toBeInstanceOf(RevisionCompactedError);
  });

  it('ends watches and refuses operations once closed', async () => {
    backend = new MemoryBackend();
    const { errors, listener } = collector();
    backend.watch({ key: '/', prefix: true, startRevision: 0 }, listener);
    await backend.close();
    expect(errors).toHaveLength(1);
    await expect(backend.get('/a')).rejects.toThrow('closed');
  });

  it('backs a Store through createMemoryStorage', async () => {
    const store = createMemoryStorage();
    const created = await store.create('/registry/things/a', { metadata: { name: 'a' } });
    expect(created.metadata.resourceVersion).toBe('2');
    expect(await store.count('/registry/things')).toBe(1);
    await store.close();
    await expect(store.get('/registry/things/a')).rejects.toThrow('closed');
  });
});
