import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject, type Status } from '@kapi/apimachinery';
import type { ListOptions, StorageWatchEvent, Watch } from '@kapi/storage';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Cacher } from './cacher.js';
import type { CacherOptions } from './cacher-options.js';
import { FakeClock } from './clock.js';
import { InstrumentedStorage, configMap, newMemoryStore } from './test-support/memory-store.js';
import { equalitySelector } from '@kapi/storage/testing';

const prefix = '/registry/configmaps';
const keyOf = (name: string) => `${prefix}/default/${name}`;
const revisionOf = (object: { metadata?: { resourceVersion?: string } }) => Number(object.metadata?.resourceVersion);

const running: Cacher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((cacher) => cacher.stop()));
});

/** A cacher on a fake clock over a memory Store (no periodic progress unless asked). */
function setup(options: Partial<CacherOptions> = {}, progressNotifyIntervalMs = 0) {
  const { kv, store } = newMemoryStore(progressNotifyIntervalMs);
  const storage = new InstrumentedStorage(store);
  const clock = new FakeClock();
  const cacher = new Cacher({ storage, resourcePrefix: prefix, clock, random: () => 0, stopCatchUpTimeoutMs: 0, ...options });
  running.push(cacher);
  return { kv, store, storage, clock, cacher };
}

/** Reads a watch in the background into an array. */
function collect(watch: Watch): { events: StorageWatchEvent[]; ended: Promise<void> } {
  const events: StorageWatchEvent[] = [];
  const ended = (async () => {
    for await (const event of watch) events.push(event);
  })();
  return { events, ended };
}

async function caughtUp(cacher: Cacher, revision: number): Promise<void> {
  await vi.waitFor(() => expect(cacher.resourceVersion).toBeGreaterThanOrEqual(revision));
}

describe('Cacher watches', () => {
  it('serves a watch from history, sharing event objects between watchers', async () => {
    const { cacher } = setup();
    await cacher.start();
    const a = await cacher.create(keyOf('a'), configMap('a'));
    const b = await cacher.create(keyOf('b'), configMap('b'));
    await caughtUp(cacher, revisionOf(b));
    const first = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(a)) }));
    const second = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(a)) }));
    const updated = await cacher.guaranteedUpdate(keyOf('a'), { tryUpdate: (current) => ({ ...current, data: { value: '2' } }) });
    await vi.waitFor(() => expect(second.events).toHaveLength(2));
    await vi.waitFor(() => expect(first.events).toHaveLength(2));
    expect(first.events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED']);
    expect(first.events[1]?.object).toEqual(updated);
    expect(first.events[1]?.previousObject).toEqual(a);
    for (let index = 0; index < 2; index++) {
      expect(second.events[index]).toBe(first.events[index]);
      expect(second.events[index]?.object).toBe(first.events[index]?.object);
    }
  });

  it('answers a watch older than the history window with one 410 ERROR event', async () => {
    const { cacher, clock } = setup({ minHistory: 4, maxHistory: 4, loadHistory: false });
    await cacher.start();
    const listRevision = cacher.resourceVersion;
    let last = 0;
    for (let index = 0; index < 6; index++) {
      await clock.advance(100_000);
      last = revisionOf(await cacher.create(keyOf(`o${index}`), configMap(`o${index}`)));
      await caughtUp(cacher, last);
    }
    const expired = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(listRevision + 1) }));
    await expired.ended;
    expect(expired.events).toHaveLength(1);
    expect(expired.events[0]?.type).toBe('ERROR');
    expect(expired.events[0]?.object).toMatchObject({
      code: 410,
      reason: 'Expired',
      message: `too old resource version: ${listRevision + 1} (${last - 4})`,
    } satisfies Partial<Status>);
    const served = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(last - 4) }));
    await vi.waitFor(() => expect(served.events).toHaveLength(4));
  });

  it('answers a watch from a revision the storage compacted with 410, unless told to serve it from history', async () => {
    const { cacher, kv } = setup();
    const serving = setup({ followCompaction: false });
    await cacher.start();
    const a = await cacher.create(keyOf('a'), configMap('a'));
    const a2 = await cacher.guaranteedUpdate(keyOf('a'), { tryUpdate: (current) => ({ ...current, data: { value: '2' } }) });
    const a3 = await cacher.guaranteedUpdate(keyOf('a'), { tryUpdate: (current) => ({ ...current, data: { value: '3' } }) });
    await caughtUp(cacher, revisionOf(a3));
    await kv.compact(revisionOf(a3));
    const expired = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(a)) }));
    await expired.ended;
    expect(expired.events).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ code: 410, message: `too old resource version: ${revisionOf(a)} (${revisionOf(a3)})` }) },
    ]);
    const resumed = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(a2)) }));
    await vi.waitFor(() => expect(resumed.events.map((event) => event.object)).toEqual([a3]));

    await serving.cacher.start();
    const b = await serving.cacher.create(keyOf('b'), configMap('b'));
    const b2 = await serving.cacher.guaranteedUpdate(keyOf('b'), { tryUpdate: (current) => ({ ...current, data: { value: '2' } }) });
    await caughtUp(serving.cacher, revisionOf(b2));
    await serving.kv.compact(revisionOf(b2));
    const served = collect(await serving.cacher.watch(prefix, { recursive: true, resourceVersion: String(revisionOf(b) - 1) }));
    await vi.waitFor(() => expect(served.events.map((event) => event.object)).toEqual([b, b2]));
  });

  it('closes a watcher that cannot keep up without holding back the others', async () => {
    const { cacher } = setup({ watcherQueueCapacity: 5 });
    await cacher.start();
    const slow = await cacher.watch(prefix, { recursive: true, resourceVersion: String(cacher.resourceVersion) });
    const fast = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: String(cacher.resourceVersion) }));
    for (let index = 0; index < 10; index++) await cacher.create(keyOf(`o${index}`), configMap(`o${index}`));
    await vi.waitFor(() => expect(fast.events).toHaveLength(10));
    await slow.done;
    const late = collect(slow);
    await late.ended;
    expect(late.events).toEqual([]);
  });

  it('sends a watch-list the state, then a bookmark annotated initial-events-end', async () => {
    const { cacher } = setup();
    await cacher.start();
    const a = await cacher.create(keyOf('a'), configMap('a'));
    const watch = collect(
      await cacher.watch(prefix, {
        recursive: true,
        sendInitialEvents: true,
        resourceVersion: String(revisionOf(a)),
        resourceVersionMatch: 'NotOlderThan',
        predicate: { allowWatchBookmarks: true },
      }),
    );
    await vi.waitFor(() => expect(watch.events).toHaveLength(2));
    expect(watch.events[0]).toEqual({ type: 'ADDED', object: a });
    expect(watch.events[1]).toEqual({
      type: 'BOOKMARK',
      object: { metadata: { resourceVersion: String(cacher.resourceVersion), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } },
    });
  });
});

describe('Cacher watch-list without storage progress requests', () => {
  /** Storage without progress requests (etcd 3.4.23) whose watch events reach the cache only when released. */
  class LaggingStorage extends InstrumentedStorage {
    readonly watchProgressSupported = false;
    held = true;
    private release: () => void = () => undefined;
    private gate = new Promise<void>((resolve) => (this.release = resolve));

    open(): void {
      this.held = false;
      this.release();
    }

    override async watch(key: string, options: ListOptions = {}): Promise<Watch> {
      const inner = await super.watch(key, options);
      const gated = async function* (this: LaggingStorage): AsyncGenerator<StorageWatchEvent> {
        for await (const event of inner) {
          if (this.held && event.type !== 'BOOKMARK') await this.gate;
          yield event;
        }
      }.bind(this);
      return { stop: () => inner.stop(), done: inner.done, [Symbol.asyncIterator]: gated };
    }
  }

  it('lists the storage at its revision while the cache is behind, then streams the changes after it', async () => {
    const { store } = newMemoryStore(0);
    const storage = new LaggingStorage(store);
    const cacher = new Cacher({ storage, resourcePrefix: prefix, clock: new FakeClock(), random: () => 0, stopCatchUpTimeoutMs: 0 });
    running.push(cacher);
    await cacher.start();
    storage.held = true;
    const a = await store.create(keyOf('a'), configMap('a'));
    expect(cacher.resourceVersion).toBeLessThan(revisionOf(a));
    const watch = collect(
      await cacher.watch(prefix, { recursive: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', predicate: { allowWatchBookmarks: true } }),
    );
    await vi.waitFor(() => expect(watch.events).toHaveLength(2));
    expect(watch.events[0]).toEqual({ type: 'ADDED', object: a });
    expect(watch.events[1]?.type).toBe('BOOKMARK');
    expect(revisionOf(watch.events[1]?.object as KubeObject)).toBe(revisionOf(a));
    storage.open();
    const b = await cacher.create(keyOf('b'), configMap('b'));
    await vi.waitFor(() => expect(watch.events).toHaveLength(3));
    expect(watch.events[2]).toMatchObject({ type: 'ADDED', object: b });
  });
});

describe('Cacher reads', () => {
  const nodeOf = (object: KubeObject) => String((object.spec as { nodeName?: string } | undefined)?.nodeName ?? '');
  const pod = (name: string, nodeName: string, app: string): KubeObject => ({
    ...configMap(name, { labels: { app } }),
    spec: { nodeName },
  });

  it('lists from the cache through an index and selectors, ignoring limit at RV=0', async () => {
    const matched: string[] = [];
    const { cacher, clock } = setup({
      indexers: { 'spec.nodeName': (object) => [nodeOf(object)] },
      getAttributes: (object) => {
        matched.push(object.metadata.name ?? '');
        return { labels: object.metadata.labels ?? {}, fields: { 'metadata.name': object.metadata.name ?? '', 'spec.nodeName': nodeOf(object) } };
      },
    });
    await cacher.start();
    const a = await cacher.create(keyOf('a'), pod('a', 'n1', 'web'));
    const b = await cacher.create(keyOf('b'), pod('b', 'n2', 'web'));
    const c = await cacher.create(keyOf('c'), pod('c', 'n1', 'db'));
    const list = await cacher.getList(prefix, { recursive: true, resourceVersion: String(revisionOf(c)) });
    expect(list.items).toEqual([a, b, c]);
    expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(revisionOf(c));
    const onNode = await cacher.getList(prefix, {
      recursive: true,
      resourceVersion: '0',
      predicate: { limit: 1, field: equalitySelector({ 'spec.nodeName': 'n1' }), label: equalitySelector({ app: 'web' }) },
    });
    expect(onNode.items).toEqual([a]);
    expect(onNode.continue).toBeUndefined();
    expect(matched.sort()).toEqual(['a', 'c']);
    expect(await cacher.get(keyOf('b'), { resourceVersion: '0' })).toBe(list.items[1]);
    const tooLarge = expect(cacher.get(keyOf('b'), { resourceVersion: String(revisionOf(c) + 10) })).rejects.toMatchObject({
      status: { code: 504, message: `Timeout: Too large resource version: ${revisionOf(c) + 10}, current: ${revisionOf(c)}` },
    });
    await clock.advance(2_900);
    await clock.advance(100);
    await tooLarge;
  });
});

describe('Cacher consistent GETs', () => {
  it('reads the storage by default, and the cache once caught up with consistentGetFromCache', async () => {
    for (const consistentGetFromCache of [false, true]) {
      const { cacher, store } = setup({ consistentGetFromCache });
      await cacher.start();
      await cacher.create(keyOf('a'), configMap('a'));
      // Written behind the cacher's back: a consistent read must still see it.
      const updated = await store.guaranteedUpdate(keyOf('a'), {
        tryUpdate: (current) => ({ ...current, data: { value: 'new' } }),
      });
      const first = await cacher.get(keyOf('a'));
      expect(first).toEqual(updated);
      const second = await cacher.get(keyOf('a'));
      // The cache hands out its one shared object; the storage decodes a new one per read.
      if (consistentGetFromCache) expect(second).toBe(first);
      else expect(second).not.toBe(first);
      await expect(cacher.get(keyOf('missing'))).rejects.toMatchObject({ code: 'KeyNotFound' });
      expect(await cacher.get(keyOf('missing'), { ignoreNotFound: true })).toBeUndefined();
    }
  });

  it('asks for progress on the watches of its own resource when a write elsewhere left it behind', async () => {
    const { cacher, store, storage } = setup({ consistentGetFromCache: true });
    await cacher.start();
    await cacher.create(keyOf('a'), configMap('a'));
    const requestsBefore = storage.progressRequests;
    // Another resource's write moves the storage's revision past everything the configmaps cache has seen.
    await store.create('/registry/leases/default/l', configMap('l'));
    expect(await cacher.get(keyOf('a'))).toMatchObject({ metadata: { name: 'a' } });
    expect(storage.progressRequests).toBeGreaterThan(requestsBefore);
    expect(storage.progressKeys.slice(requestsBefore)).toEqual(expect.arrayContaining([prefix]));
    expect(storage.progressKeys.slice(requestsBefore).every((key) => key === prefix)).toBe(true);
  });
});

describe('Cacher paging', () => {
  it('serves the first NotOlderThan page from the cache with a continue token the storage follows', async () => {
    const { cacher, storage } = setup();
    await cacher.start();
    const a = await cacher.create(keyOf('a'), configMap('a'));
    const b = await cacher.create(keyOf('b'), configMap('b'));
    const c = await cacher.create(keyOf('c'), configMap('c'));
    const lists = storage.lists;
    const first = await cacher.getList(`${prefix}/`, {
      recursive: true,
      resourceVersion: String(revisionOf(c)),
      resourceVersionMatch: 'NotOlderThan',
      predicate: { limit: 2 },
    });
    expect(first.items).toEqual([a, b]);
    expect(first.remainingItemCount).toBe(1);
    expect(storage.lists).toBe(lists);
    const second = await cacher.getList(`${prefix}/`, { recursive: true, predicate: { limit: 2, continue: first.continue as string } });
    expect(second.items).toEqual([c]);
    expect(second.continue).toBeUndefined();
    expect(second.resourceVersion).toBe(first.resourceVersion);
  });

  it('serves the first page of a consistent read (kubectl get: limit, no RV) from the cache once caught up', async () => {
    const { cacher, storage, store } = setup();
    await cacher.start();
    const a = await cacher.create(keyOf('a'), configMap('a'));
    const b = await cacher.create(keyOf('b'), configMap('b'));
    // Written behind the cacher's back: the consistent read must include it.
    const c = await store.create(keyOf('c'), configMap('c'));
    const lists = storage.lists;
    const first = await cacher.getList(`${prefix}/`, { recursive: true, predicate: { limit: 2 } });
    expect(first.items).toEqual([a, b]);
    expect(first.remainingItemCount).toBe(1);
    expect(Number(first.resourceVersion)).toBeGreaterThanOrEqual(revisionOf(c));
    expect(storage.lists).toBe(lists);
    const second = await cacher.getList(`${prefix}/`, { recursive: true, predicate: { limit: 2, continue: first.continue as string } });
    expect(second.items).toEqual([c]);
    expect(second.continue).toBeUndefined();
    expect(second.resourceVersion).toBe(first.resourceVersion);
    expect(storage.lists).toBe(lists + 1);
  });

  it('pages a label-selected consistent read from the cache, without a remaining count', async () => {
    const { cacher, storage } = setup();
    await cacher.start();
    const a = await cacher.create(keyOf('a'), configMap('a', { labels: { app: 'web' } }));
    await cacher.create(keyOf('b'), configMap('b', { labels: { app: 'db' } }));
    const c = await cacher.create(keyOf('c'), configMap('c', { labels: { app: 'web' } }));
    await cacher.create(keyOf('d'), configMap('d', { labels: { app: 'web' } }));
    const lists = storage.lists;
    const first = await cacher.getList(`${prefix}/`, { recursive: true, predicate: { limit: 2, label: equalitySelector({ app: 'web' }) } });
    expect(first.items).toEqual([a, c]);
    expect(first.remainingItemCount).toBeUndefined();
    expect(first.continue).toEqual(expect.any(String));
    expect(storage.lists).toBe(lists);
  });
});

describe('Cacher bookmarks', () => {
  it('sends bookmark-enabled watchers a BOOKMARK every minute and 2 s before their deadline', async () => {
    const { cacher, clock } = setup();
    await cacher.start();
    const start = String(cacher.resourceVersion);
    const periodic = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: start, predicate: { allowWatchBookmarks: true } }));
    const expiring = collect(
      await cacher.watch(prefix, { recursive: true, resourceVersion: start, deadline: clock.now() + 10_000, predicate: { allowWatchBookmarks: true } }),
    );
    const plain = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: start }));
    const a = await cacher.create(keyOf('a'), configMap('a'));
    await caughtUp(cacher, revisionOf(a));
    const bookmark = { type: 'BOOKMARK', object: { metadata: { resourceVersion: String(revisionOf(a)) } } };

    await clock.advance(7_900);
    expect(expiring.events.map((event) => event.type)).toEqual(['ADDED']);
    await clock.advance(1_100);
    expect(expiring.events[1]).toEqual(bookmark);
    expect(periodic.events.map((event) => event.type)).toEqual(['ADDED']);

    await clock.advance(50_000);
    expect(periodic.events).toHaveLength(1);
    await clock.advance(2_000);
    expect(periodic.events[1]).toEqual(bookmark);
    await clock.advance(60_000);
    expect(periodic.events.slice(2)).toEqual([bookmark]);
    expect(expiring.events).toHaveLength(2);
    expect(plain.events.map((event) => event.type)).toEqual(['ADDED']);
  });

  it('forwards requested storage progress to progressNotify watchers, and to bookmark watchers only once a tick', async () => {
    const { cacher, clock, store } = setup();
    await cacher.start();
    const start = String(cacher.resourceVersion);
    const storageLevel = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: start, progressNotify: true }));
    const http = collect(
      await cacher.watch(prefix, { recursive: true, resourceVersion: start, progressNotify: true, predicate: { allowWatchBookmarks: true } }),
    );
    const elsewhere = await store.create('/registry/secrets/default/s', configMap('s'));
    const bookmark = { type: 'BOOKMARK', object: { metadata: { resourceVersion: String(revisionOf(elsewhere)) } } };
    for (let request = 0; request < 3; request++) await cacher.requestWatchProgress();
    await vi.waitFor(() => expect(storageLevel.events).toHaveLength(3));
    expect(storageLevel.events).toEqual([bookmark, bookmark, bookmark]);
    expect(http.events).toEqual([]);
    await clock.advance(1_300);
    expect(http.events).toEqual([bookmark]);
    await cacher.requestWatchProgress();
    await clock.advance(1_300);
    expect(http.events).toHaveLength(1);
  });

  it('on stop sends bookmark-enabled watchers a final BOOKMARK at the backend revision, then ends every watch', async () => {
    const { cacher, store } = setup({ stopCatchUpTimeoutMs: 1000 });
    await cacher.start();
    const start = String(cacher.resourceVersion);
    const bookmarked = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: start, predicate: { allowWatchBookmarks: true } }));
    const plain = collect(await cacher.watch(prefix, { recursive: true, resourceVersion: start }));
    await cacher.create(keyOf('a'), configMap('a'));
    const elsewhere = await store.create('/registry/secrets/default/s', configMap('s'));
    await cacher.stop();
    await Promise.all([bookmarked.ended, plain.ended]);
    expect(bookmarked.events.map((event) => event.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(revisionOf(bookmarked.events[1]?.object as KubeObject)).toBe(revisionOf(elsewhere));
    expect(plain.events.map((event) => event.type)).toEqual(['ADDED']);
    await expect(cacher.watch(prefix, { recursive: true })).rejects.toMatchObject({ status: { code: 429 } });
  });
});
