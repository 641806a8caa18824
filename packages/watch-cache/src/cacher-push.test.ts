import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject } from '@kapi/apimachinery';
import type { StorageWatchEvent, Watch } from '@kapi/storage';
import { equalitySelector } from '@kapi/storage/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Cacher } from './cacher.js';
import type { CacherOptions } from './cacher-options.js';
import { FakeClock } from './clock.js';
import { configMap, newMemoryStore } from './test-support/memory-store.js';

// The cacher's watches consumed in push mode (`Watch.deliver`), as the server's watch handler does.

const prefix = '/registry/configmaps';
const keyOf = (name: string, namespace = 'default') => `${prefix}/${namespace}/${name}`;
const revisionOf = (object: { metadata?: { resourceVersion?: string } }) => Number(object.metadata?.resourceVersion);
const nameOf = (event: StorageWatchEvent) => (event.object as KubeObject).metadata.name;

const running: Cacher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((cacher) => cacher.stop()));
});

function setup(options: Partial<CacherOptions> = {}) {
  const { store } = newMemoryStore(0);
  const clock = new FakeClock();
  const cacher = new Cacher({ storage: store, resourcePrefix: prefix, clock, random: () => 0, stopCatchUpTimeoutMs: 0, ...options });
  running.push(cacher);
  return { store, clock, cacher };
}

/**
 * Consumes a watch in push mode. While `paused`, the receiver asks to wait (like a socket whose write
 * returned false) and the consumer waits for `resume()` before asking for more.
 */
function receive(watch: Watch) {
  const events: StorageWatchEvent[] = [];
  let paused = false;
  let resumed: (() => void) | undefined;
  const deliver = watch.deliver?.bind(watch);
  if (!deliver) throw new Error('the watch has no push mode');
  const ended = (async () => {
    while (await deliver((event) => (events.push(event), !paused))) {
      if (paused) await new Promise<void>((resolve) => (resumed = resolve));
    }
  })();
  return {
    events,
    ended,
    pause: () => (paused = true),
    resume: () => {
      paused = false;
      resumed?.();
    },
  };
}

async function caughtUp(cacher: Cacher, revision: number): Promise<void> {
  await vi.waitFor(() => expect(cacher.resourceVersion).toBeGreaterThanOrEqual(revision));
}

describe('Cacher watches in push mode', () => {
  it('filters by namespace and label selector, with selector transitions as ADDED/DELETED', async () => {
    const { cacher } = setup();
    await cacher.start();
    const start = String(cacher.resourceVersion);
    const inDefault = receive(await cacher.watch(`${prefix}/default`, { recursive: true, resourceVersion: start }));
    const labelled = receive(
      await cacher.watch(prefix, { recursive: true, resourceVersion: start, predicate: { label: equalitySelector({ app: 'web' }) } }),
    );
    await cacher.create(keyOf('a'), configMap('a'));
    await cacher.create(keyOf('b', 'other'), configMap('b', { namespace: 'other', labels: { app: 'web' } }));
    await cacher.guaranteedUpdate(keyOf('a'), { tryUpdate: (current) => ({ ...current, metadata: { ...current.metadata, labels: { app: 'web' } } }) });
    const last = await cacher.guaranteedUpdate(keyOf('a'), { tryUpdate: (current) => ({ ...current, metadata: { ...current.metadata, labels: {} } }) });
    await caughtUp(cacher, revisionOf(last));
    expect(inDefault.events.map((event) => [event.type, nameOf(event)])).toEqual([
      ['ADDED', 'a'],
      ['MODIFIED', 'a'],
      ['MODIFIED', 'a'],
    ]);
    expect(labelled.events.map((event) => [event.type, nameOf(event)])).toEqual([
      ['ADDED', 'b'],
      ['ADDED', 'a'],
      ['DELETED', 'a'],
    ]);
  });

  it('keeps the order across a pause: events dispatched meanwhile come first when the consumer resumes', async () => {
    const { cacher } = setup();
    await cacher.start();
    const watch = receive(await cacher.watch(prefix, { recursive: true, resourceVersion: String(cacher.resourceVersion) }));
    const names = ['o0', 'o1', 'o2', 'o3', 'o4', 'o5'];
    let last = 0;
    for (const [index, name] of names.entries()) {
      if (index === 2) watch.pause();
      last = revisionOf(await cacher.create(keyOf(name), configMap(name)));
      await caughtUp(cacher, last);
    }
    // Paused after o2 was handed over: o3..o5 are queued.
    expect(watch.events.map(nameOf)).toEqual(['o0', 'o1', 'o2']);
    watch.resume();
    await vi.waitFor(() => expect(watch.events.map(nameOf)).toEqual(names));
    const after = await cacher.create(keyOf('o6'), configMap('o6'));
    await caughtUp(cacher, revisionOf(after));
    expect(watch.events.map(nameOf)).toEqual([...names, 'o6']);
  });

  it('closes a watcher that cannot keep up without holding back the others', async () => {
    const { cacher } = setup({ watcherQueueCapacity: 5 });
    await cacher.start();
    const start = String(cacher.resourceVersion);
    const slow = receive(await cacher.watch(prefix, { recursive: true, resourceVersion: start }));
    const fast = receive(await cacher.watch(prefix, { recursive: true, resourceVersion: start }));
    slow.pause();
    for (let index = 0; index < 10; index++) await cacher.create(keyOf(`o${index}`), configMap(`o${index}`));
    await vi.waitFor(() => expect(fast.events).toHaveLength(10));
    slow.resume();
    await slow.ended;
    expect(slow.events.map(nameOf)).toEqual(['o0']);
  });

  it('sends a watch-list the state, then the initial-events-end bookmark, then changes', async () => {
    const { cacher } = setup();
    await cacher.start();
    const a = await cacher.create(keyOf('a'), configMap('a'));
    const watch = receive(
      await cacher.watch(prefix, {
        recursive: true,
        sendInitialEvents: true,
        resourceVersion: String(revisionOf(a)),
        resourceVersionMatch: 'NotOlderThan',
        predicate: { allowWatchBookmarks: true },
      }),
    );
    const b = await cacher.create(keyOf('b'), configMap('b'));
    await caughtUp(cacher, revisionOf(b));
    await vi.waitFor(() => expect(watch.events).toHaveLength(3));
    expect(watch.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    expect(watch.events[1]).toEqual({
      type: 'BOOKMARK',
      object: { metadata: { resourceVersion: String(revisionOf(a)), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } },
    });
    expect(watch.events[2]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });
  });

  it('sends bookmarks 2 s before the deadline and every minute, and a final one on stop', async () => {
    const { cacher, clock, store } = setup({ stopCatchUpTimeoutMs: 1000 });
    await cacher.start();
    const start = String(cacher.resourceVersion);
    const periodic = receive(await cacher.watch(prefix, { recursive: true, resourceVersion: start, predicate: { allowWatchBookmarks: true } }));
    const expiring = receive(
      await cacher.watch(prefix, { recursive: true, resourceVersion: start, deadline: clock.now() + 10_000, predicate: { allowWatchBookmarks: true } }),
    );
    const plain = receive(await cacher.watch(prefix, { recursive: true, resourceVersion: start }));
    const a = await cacher.create(keyOf('a'), configMap('a'));
    await caughtUp(cacher, revisionOf(a));
    const bookmark = { type: 'BOOKMARK', object: { metadata: { resourceVersion: String(revisionOf(a)) } } };
    await clock.advance(9_000);
    expect(expiring.events[1]).toEqual(bookmark);
    expect(periodic.events.map((event) => event.type)).toEqual(['ADDED']);
    await clock.advance(52_000);
    expect(periodic.events[1]).toEqual(bookmark);
    const elsewhere = await store.create('/registry/secrets/default/s', configMap('s'));
    await cacher.stop();
    await Promise.all([periodic.ended, expiring.ended, plain.ended]);
    expect(periodic.events.map((event) => event.type)).toEqual(['ADDED', 'BOOKMARK', 'BOOKMARK']);
    expect(revisionOf(periodic.events[2]?.object as KubeObject)).toBe(revisionOf(elsewhere));
    expect(plain.events.map((event) => event.type)).toEqual(['ADDED']);
  });
});
