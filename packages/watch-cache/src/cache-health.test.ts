import { afterEach, describe, expect, it, vi } from 'vitest';
import { Cacher } from './cacher.js';
import { FakeClock } from './clock.js';
import { configMap, newMemoryStore } from './test-support/memory-store.js';

const prefix = '/registry/configmaps';
const keyOf = (name: string) => `${prefix}/default/${name}`;
const revisionOf = (object: { metadata?: { resourceVersion?: string } }) => Number(object.metadata?.resourceVersion);

const running: Cacher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((cacher) => cacher.stop()));
});

function setup() {
  const { store } = newMemoryStore(0);
  const clock = new FakeClock();
  const cacher = new Cacher({ storage: store, resourcePrefix: prefix, clock, random: () => 0, stopCatchUpTimeoutMs: 0, minHistory: 4, maxHistory: 4, loadHistory: false });
  running.push(cacher);
  return { clock, cacher };
}

describe('Cacher.health', () => {
  it('reports the history window: its oldest resumable revision, events held, capacity and oldest event time', async () => {
    const { cacher, clock } = setup();
    await cacher.start();
    const listRevision = cacher.resourceVersion;
    expect(cacher.health).toEqual({ resourceVersion: listRevision, oldestResourceVersion: listRevision, historyEvents: 0, historyCapacity: 4, watchers: 0 });

    const start = clock.now();
    const revisions: number[] = [];
    for (let index = 0; index < 6; index++) {
      await clock.advance(100_000);
      revisions.push(revisionOf(await cacher.create(keyOf(`o${index}`), configMap(`o${index}`))));
      await vi.waitFor(() => expect(cacher.resourceVersion).toBe(revisions.at(-1)));
    }
    // Six events through a history of four: the first two were evicted.
    expect(cacher.health).toEqual({
      resourceVersion: revisions[5],
      oldestResourceVersion: (revisions[2] as number) - 1,
      historyEvents: 4,
      historyCapacity: 4,
      oldestEventTime: start + 300_000,
      watchers: 0,
    });
  });

  it('counts the open watchers and records when a bookmark was last sent', async () => {
    const { cacher, clock } = setup();
    await cacher.start();
    const controller = new AbortController();
    const options = { recursive: true, resourceVersion: String(cacher.resourceVersion), signal: controller.signal };
    await cacher.watch(prefix, { ...options, predicate: { allowWatchBookmarks: true } });
    await cacher.watch(prefix, options);
    expect(cacher.health.watchers).toBe(2);
    expect(cacher.health.lastBookmarkTime).toBeUndefined();

    await clock.advance(61_000); // bookmarks go out every minute
    const sent = cacher.health.lastBookmarkTime;
    expect(sent).toBeGreaterThan(clock.now() - 2_000);
    expect(sent).toBeLessThanOrEqual(clock.now());

    controller.abort();
    await vi.waitFor(() => expect(cacher.health.watchers).toBe(0));
  });
});
