import type { KubeObject } from '@kapi/apimachinery';
import type { ListOptions, StorageWatchEvent, Watch } from '@kapi/storage';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Cacher } from './cacher.js';
import type { CacherOptions } from './cacher-options.js';
import { FakeClock, flushMicrotasks } from './clock.js';
import { InstrumentedStorage, Store, configMap, newMemoryStore, type MemoryBackend } from './test-support/memory-store.js';

const prefix = '/registry/configmaps';
const keyOf = (name: string) => `${prefix}/default/${name}`;
const revisionOf = (object: { metadata?: { resourceVersion?: string } }) => Number(object.metadata?.resourceVersion);

const running: Cacher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((cacher) => cacher.stop()));
});

function newCacher(storage: InstrumentedStorage, clock: FakeClock, options: Partial<CacherOptions> = {}): Cacher {
  const cacher = new Cacher({ storage, resourcePrefix: prefix, clock, random: () => 0, stopCatchUpTimeoutMs: 0, ...options });
  running.push(cacher);
  return cacher;
}

function setup(options: Partial<CacherOptions> = {}) {
  const { kv, store } = newMemoryStore(0);
  const storage = new InstrumentedStorage(store);
  const clock = new FakeClock();
  return { kv, store, storage, clock, cacher: newCacher(storage, clock, options) };
}

function collect(watch: Watch): { events: StorageWatchEvent[]; ended: Promise<void> } {
  const events: StorageWatchEvent[] = [];
  const ended = (async () => {
    for await (const event of watch) events.push(event);
  })();
  return { events, ended };
}

/** Writes `count` changes below the prefix before any cacher exists; returns the objects written. */
async function history(store: Store, count: number) {
  const written = [await store.create(keyOf('a'), configMap('a'))];
  for (let index = 1; index < count; index++) {
    written.push(await store.guaranteedUpdate(keyOf('a'), { tryUpdate: (current) => ({ ...current, data: { value: String(index) } }) }));
  }
  return written;
}

describe('Cacher filling', () => {
  it('serves a consistent list from the cache once a requested progress notification catches it up', async () => {
    const { cacher, storage, store, clock } = setup();
    await cacher.start();
    const lists = storage.lists;
    const elsewhere = await store.create('/registry/secrets/default/s', configMap('s'));
    storage.holdProgress = true;
    let result: { resourceVersion: string } | undefined;
    const listing = cacher.getList(prefix, { recursive: true }).then((list) => (result = list));
    await vi.waitFor(() => expect(storage.progressRequests).toBe(1));
    await clock.advance(100);
    await clock.advance(100);
    expect(storage.progressRequests).toBe(3);
    expect(result).toBeUndefined();
    storage.holdProgress = false;
    await clock.advance(100);
    await listing;
    expect(Number(result?.resourceVersion)).toBeGreaterThanOrEqual(revisionOf(elsewhere));
    expect(cacher.resourceVersion).toBeGreaterThanOrEqual(revisionOf(elsewhere));
    expect(storage.lists).toBe(lists);
    const requests = storage.progressRequests;
    await clock.advance(1000);
    expect(storage.progressRequests).toBe(requests);
  });

  it('resumes a broken backend watch from the last revision without relisting or dropping watchers', async () => {
    const { cacher, storage, clock } = setup();
    await cacher.start();
    const lists = storage.lists;
    const client = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(cacher.resourceVersion) }));
    const a = await cacher.create(keyOf('a'), configMap('a'));
    await vi.waitFor(() => expect(client.events).toHaveLength(1));
    storage.lastWatch?.watch.stop();
    await flushMicrotasks();
    const b = await storage.create(keyOf('b'), configMap('b'));
    await clock.advance(1000);
    await vi.waitFor(() => expect(client.events).toHaveLength(2));
    expect(client.events[1]?.object).toEqual(b);
    expect(storage.watches).toHaveLength(2);
    expect(storage.watches[1]?.options.resourceVersion).toBe(String(revisionOf(a)));
    expect(storage.lists).toBe(lists);
    expect(cacher.isReady).toBe(true);
  });

  it('relists when the backend has compacted the revision to resume from, ending the watchers', async () => {
    const { cacher, storage, clock, kv } = setup();
    await cacher.start();
    const lists = storage.lists;
    const client = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(cacher.resourceVersion) }));
    await vi.waitFor(() => expect(storage.watches).toHaveLength(1));
    storage.lastWatch?.watch.stop();
    await flushMicrotasks();
    await storage.create(keyOf('a'), configMap('a'));
    const b = await storage.create(keyOf('b'), configMap('b'));
    await (kv as MemoryBackend).compact(await kv.currentRevision());
    await clock.advance(1000);
    await client.ended;
    await vi.waitFor(() => expect(storage.lists).toBe(lists + 1));
    await cacher.waitUntilReady();
    const list = await cacher.getList(prefix, { recursive: true, resourceVersion: '0' });
    expect(list.items.map((item) => item.metadata.name)).toEqual(['a', 'b']);
    expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(revisionOf(b));
  });

  it('with history loading, serves a watch from an old but uncompacted revision right after start', async () => {
    const { kv, store } = newMemoryStore(0);
    const written = await history(store, 4);
    // The backend revision moves past the resource's last change: the replay ends with a progress notification.
    await store.create('/registry/secrets/default/s', configMap('s'));
    const clock = new FakeClock();
    const cacher = newCacher(new InstrumentedStorage(store), clock);
    await cacher.start();
    const watch = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(written[0]!)) }));
    await vi.waitFor(() => expect(watch.events).toHaveLength(3));
    expect(watch.events.map((event) => event.object)).toEqual(written.slice(1));
    expect(watch.events[0]?.previousObject).toEqual(written[0]);

    await kv.compact(revisionOf(written[2]!));
    const restarted = newCacher(new InstrumentedStorage(store), clock);
    await restarted.start();
    const after = collect(await restarted.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(written[2]!)) }));
    await vi.waitFor(() => expect(after.events).toHaveLength(1));
    expect(after.events[0]?.object).toEqual(written[3]);
    const fromCompacted = collect(await restarted.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(written[1]!)) }));
    await vi.waitFor(() => expect(fromCompacted.events).toHaveLength(2));
    expect(fromCompacted.events.map((event) => event.object)).toEqual(written.slice(2));
    const tooOld = collect(await restarted.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(written[0]!)) }));
    await tooOld.ended;
    expect(tooOld.events).toHaveLength(1);
    expect(tooOld.events[0]?.object).toMatchObject({
      code: 410,
      message: `too old resource version: ${revisionOf(written[0]!)} (${revisionOf(written[2]!)})`,
    });
  });

  it('asks the storage for previous values only while replaying history beside a listed state, then watches again without', async () => {
    const { kv, store } = newMemoryStore(0);
    const written = await history(store, 4);
    await store.create('/registry/secrets/default/s', configMap('s'));
    await kv.compact(revisionOf(written[1]!));
    const storage = new InstrumentedStorage(store);
    const cacher = newCacher(storage, new FakeClock());
    await cacher.start();
    await vi.waitFor(() => expect(storage.watches).toHaveLength(2));
    const lists = storage.lists;
    expect(storage.watches[0]?.options.omitPrevious).toBe(false);
    expect(storage.watches[1]?.options.omitPrevious).toBe(true);
    expect(Number(storage.watches[1]?.options.resourceVersion)).toBeGreaterThanOrEqual(revisionOf(written[3]!));
    // The replayed history keeps its previous objects; later changes arrive on the second watch.
    const watch = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(written[1]!)) }));
    await vi.waitFor(() => expect(watch.events).toHaveLength(2));
    expect(watch.events.map((event) => event.object)).toEqual(written.slice(2));
    expect(watch.events[0]?.previousObject).toEqual(written[1]);
    const deleted = await store.delete(keyOf('a'));
    await vi.waitFor(() => expect(watch.events).toHaveLength(3));
    expect(watch.events[2]).toMatchObject({ type: 'DELETED', object: deleted, previousObject: written[3] });
    expect(storage.watches).toHaveLength(2);
    expect(storage.lists).toBe(lists);
  });

  it('fills from one replay of a never-compacted log, without a list: state and history from the same read', async () => {
    const { store } = newMemoryStore(0);
    const written = await history(store, 3);
    const b = await store.create(keyOf('b'), configMap('b'));
    const c = await store.create(keyOf('c'), configMap('c'));
    const deleted = await store.delete(keyOf('b'));
    await store.create('/registry/secrets/default/s', configMap('s'));
    const storage = new InstrumentedStorage(store);
    const cacher = newCacher(storage, new FakeClock());
    await cacher.start();
    expect(storage.lists).toBe(0);
    expect(storage.watches[0]?.options.resourceVersion).toBe('1');
    // The replay builds the state, so deletions need no previous values from the storage.
    expect(storage.watches[0]?.options.omitPrevious).toBe(true);
    const cached = await cacher.getList(prefix, { recursive: true, resourceVersion: '0' });
    expect(cached.items).toEqual((await store.getList(prefix, { recursive: true })).items);
    expect(cached.items.map((item) => item.metadata.name)).toEqual(['a', 'c']);
    const watch = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: '1' }));
    await vi.waitFor(() => expect(watch.events).toHaveLength(6));
    expect(watch.events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'ADDED', 'ADDED', 'DELETED']);
    expect(watch.events.map((event) => event.object)).toEqual([...written, b, c, deleted]);
    expect(watch.events[5]?.previousObject).toEqual(b);
    // The state and the history hold one copy of an unchanged object.
    expect(watch.events[4]?.object).toBe(cached.items[1]);
  });

  it('lists the storage in pages of listPageSize at the first page\'s revision; later writes arrive as events', async () => {
    const { store } = newMemoryStore(0);
    for (const name of ['a', 'b', 'c', 'd', 'e']) await store.create(keyOf(name), configMap(name));
    const pages: ListOptions[] = [];
    const storage = new InstrumentedStorage(store);
    const getList = storage.getList.bind(storage);
    storage.getList = async (key, options) => {
      const page = await getList(key, options);
      if (options?.predicate?.limit) pages.push(options);
      if (pages.length === 1) await store.create(keyOf('f'), configMap('f'));
      return page;
    };
    const cacher = newCacher(storage, new FakeClock(), { listPageSize: 2, loadHistory: false });
    await cacher.start();
    expect(pages.map((page) => page.predicate?.continue !== undefined)).toEqual([false, true, true]);
    await vi.waitFor(async () => {
      const list = await cacher.getList(prefix, { recursive: true, resourceVersion: '0' });
      expect(list.items.map((item) => item.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    });
  });

  it('gives timers and I/O a turn of the event loop between the pages of its list', async () => {
    const { store } = newMemoryStore(0);
    for (const name of ['a', 'b', 'c', 'd', 'e']) await store.create(keyOf(name), configMap(name));
    const order: string[] = [];
    const storage = new InstrumentedStorage(store);
    const getList = storage.getList.bind(storage);
    storage.getList = async (key, options) => {
      const page = await getList(key, options);
      if (options?.predicate?.limit) order.push('page');
      return page;
    };
    const cacher = newCacher(storage, new FakeClock(), { listPageSize: 2, loadHistory: false });
    const started = cacher.start();
    setImmediate(() => order.push('macrotask'));
    await started;
    expect(order).toEqual(['page', 'macrotask', 'page', 'page']);
  });

  it('lists again in one call when a page\'s revision is compacted between pages', async () => {
    const { kv, store } = newMemoryStore(0);
    for (const name of ['a', 'b', 'c']) await store.create(keyOf(name), configMap(name));
    const storage = new InstrumentedStorage(store);
    const getList = storage.getList.bind(storage);
    const limits: Array<number | undefined> = [];
    storage.getList = async (key, options) => {
      limits.push(options?.predicate?.limit);
      const page = await getList(key, options);
      if (limits.length === 1) {
        await store.create(keyOf('d'), configMap('d'));
        await kv.compact(await kv.currentRevision());
      }
      return page;
    };
    const cacher = newCacher(storage, new FakeClock(), { listPageSize: 2, loadHistory: false });
    await cacher.start();
    expect(limits).toEqual([2, 2, undefined]);
    const list = await cacher.getList(prefix, { recursive: true, resourceVersion: '0' });
    expect(list.items.map((item) => item.metadata.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('replays an unchanged object into the history as the listed object itself (one copy held, not two)', async () => {
    const { store } = newMemoryStore(0);
    const written = await history(store, 2);
    const other = await store.create(keyOf('b'), configMap('b'));
    await store.create('/registry/secrets/default/s', configMap('s'));
    const cacher = newCacher(new InstrumentedStorage(store), new FakeClock());
    await cacher.start();
    const listed = (await cacher.getList(prefix, { recursive: true, resourceVersion: '0' })).items;
    const watch = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(written[0]!) - 1) }));
    await vi.waitFor(() => expect(watch.events).toHaveLength(3));
    const [created, updated, createdOther] = watch.events.map((event) => event.object);
    expect(created).toEqual(written[0]);
    expect(updated).toBe(listed[0]);
    expect(createdOther).toBe(listed[1]);
    expect(createdOther).toEqual(other);
  });

  it('lets a client resume on a restarted cache from the final bookmark of the stopped one, while only other resources changed', async () => {
    const { store } = newMemoryStore(0);
    const clock = new FakeClock();
    const first = newCacher(new InstrumentedStorage(store), clock, { stopCatchUpTimeoutMs: 1000 });
    await first.start();
    const a = await store.create(keyOf('a'), configMap('a'));
    const client = collect(
      await first.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(a)), predicate: { allowWatchBookmarks: true } }),
    );
    let elsewhere = a;
    for (let index = 0; index < 3; index++) elsewhere = await store.create(`/registry/secrets/default/s${index}`, configMap(`s${index}`));
    await first.stop();
    await client.ended;
    const bookmark = client.events.at(-1);
    expect(bookmark?.type).toBe('BOOKMARK');
    expect(revisionOf(bookmark?.object as KubeObject)).toBe(revisionOf(elsewhere));

    const second = newCacher(new InstrumentedStorage(store), clock, { loadHistory: false });
    await second.start();
    const resumed = collect(await second.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(elsewhere)) }));
    const b = await store.create(keyOf('b'), configMap('b'));
    await vi.waitFor(() => expect(resumed.events).toEqual([{ type: 'ADDED', object: b }]));
    // Without the bookmark, the client's last revision would be older than the new cache's window.
    const stale = collect(await second.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(a)) }));
    await stale.ended;
    expect(stale.events[0]?.object).toMatchObject({ code: 410 });
  });

  it('gives up a history replay that no progress notification completes, starting with an empty history', async () => {
    const { store } = newMemoryStore(0);
    const written = await history(store, 3);
    const elsewhere = await store.create('/registry/secrets/default/s', configMap('s'));
    const storage = new InstrumentedStorage(store);
    storage.holdProgress = true;
    const clock = new FakeClock();
    const cacher = newCacher(storage, clock, { historyLoadTimeoutMs: 1000 });
    const started = cacher.start();
    await vi.waitFor(() => expect(storage.progressRequests).toBe(1));
    await clock.advance(500);
    expect(storage.progressRequests).toBe(6);
    expect(cacher.isReady).toBe(false);
    await clock.advance(500);
    await started;
    // The replay was to build the state too (the backend never compacted): the cache lists instead.
    expect(storage.lists).toBe(1);
    const last = revisionOf(elsewhere);
    expect(cacher.resourceVersion).toBe(last);
    const tooOld = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(written[2]!)) }));
    await tooOld.ended;
    expect(tooOld.events[0]?.object).toMatchObject({ code: 410, message: `too old resource version: ${revisionOf(written[2]!)} (${last})` });
    const live = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(last) }));
    const next = await store.guaranteedUpdate(keyOf('a'), { tryUpdate: (current) => ({ ...current, data: { value: 'next' } }) });
    await vi.waitFor(() => expect(live.events.map((event) => event.object)).toEqual([next]));
  });

  it('without history loading, a fresh cache starts its window at the list revision', async () => {
    const { store } = newMemoryStore(0);
    const written = await history(store, 3);
    const cacher = newCacher(new InstrumentedStorage(store), new FakeClock(), { loadHistory: false });
    await cacher.start();
    const watch = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(written[0]!)) }));
    await watch.ended;
    expect(watch.events[0]?.object).toMatchObject({
      code: 410,
      message: `too old resource version: ${revisionOf(written[0]!)} (${cacher.resourceVersion})`,
    });
  });

  it('before it is ready, answers 429 but lets GET and paged unselective LISTs through to the storage', async () => {
    const { cacher, store } = setup();
    const a = await store.create(keyOf('a'), configMap('a'));
    await expect(cacher.watch(prefix, { recursive: true })).rejects.toMatchObject({
      status: { code: 429, message: 'storage is (re)initializing', details: { retryAfterSeconds: 1 } },
    });
    await expect(cacher.getList(prefix, { recursive: true, resourceVersion: '0' })).rejects.toMatchObject({ status: { code: 429 } });
    expect(await cacher.get(keyOf('a'), { resourceVersion: '0' })).toEqual(a);
    const paged = await cacher.getList(prefix, { recursive: true, predicate: { limit: 1 } });
    expect(paged.items).toEqual([a]);
  });
});
