import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import type { StorageWatchEvent } from '@kapi/storage';
import { CacheWatchers } from './cache-watchers.js';
import type { KeyScope } from './cache-store.js';
import { FakeClock } from './clock.js';
import { WatchCacheEvent } from './watch-cache-event.js';

const object = (namespace: string, name: string, revision: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, resourceVersion: String(revision) },
});
const change = (namespace: string, name: string, revision: number) =>
  new WatchCacheEvent('ADDED', `/registry/configmaps/${namespace}/${name}`, object(namespace, name, revision), undefined, revision, 0);
const nameOf = (event: StorageWatchEvent) => (event.object as KubeObject).metadata.name;

function newWatchers(): CacheWatchers {
  return new CacheWatchers({ clock: new FakeClock(), bookmarkRevision: () => undefined, random: () => 0 });
}

/** Adds a watcher over `scope` consumed in push mode; `names` fills as events are handed over. */
function pushWatcher(watchers: CacheWatchers, scope: KeyScope, queueCapacity = 10, flowing = () => true) {
  const names: string[] = [];
  const watcher = watchers.add({ scope, startRevision: 1, allowBookmarks: false, queueCapacity });
  const delivery = watcher.deliver((event) => (names.push(nameOf(event) ?? ''), flowing()));
  return { watcher, names, delivery };
}

describe('CacheWatchers', () => {
  it('delivers a change only to the watchers whose scope covers its key', () => {
    const watchers = newWatchers();
    const all = pushWatcher(watchers, { key: '/registry/configmaps', recursive: true });
    const a1 = pushWatcher(watchers, { key: '/registry/configmaps/a/', recursive: true });
    const a2 = pushWatcher(watchers, { key: '/registry/configmaps/a', recursive: true });
    const b = pushWatcher(watchers, { key: '/registry/configmaps/b/', recursive: true });
    const one = pushWatcher(watchers, { key: '/registry/configmaps/a/x', recursive: false });
    watchers.dispatch(change('a', 'x', 2));
    watchers.dispatch(change('ab', 'y', 3));
    watchers.dispatch(change('b', 'z', 4));
    expect(all.names).toEqual(['x', 'y', 'z']);
    expect(a1.names).toEqual(['x']);
    expect(a2.names).toEqual(['x']);
    expect(b.names).toEqual(['z']);
    expect(one.names).toEqual(['x']);
  });

  it('closes a watcher that cannot keep up without holding back the others, and forgets stopped watchers', async () => {
    const watchers = newWatchers();
    const scope = { key: '/registry/configmaps/a/', recursive: true };
    const slow = pushWatcher(watchers, scope, 2, () => false);
    const fast = pushWatcher(watchers, scope, 2);
    for (let revision = 2; revision < 8; revision++) watchers.dispatch(change('a', `o${revision}`, revision));
    expect(slow.watcher.overflowed).toBe(true);
    expect(await slow.delivery).toBe(true);
    expect(slow.names).toEqual(['o2']);
    expect(fast.names).toEqual(['o2', 'o3', 'o4', 'o5', 'o6', 'o7']);
    expect(watchers.size).toBe(1);
    fast.watcher.stop();
    expect(watchers.size).toBe(0);
    const later = pushWatcher(watchers, scope);
    watchers.dispatch(change('a', 'o8', 8));
    expect(later.names).toEqual(['o8']);
  });

  it('prunes stopped watchers from the bookmark schedule once they outnumber the live ones (and 1000); live ones keep their bookmarks', async () => {
    const clock = new FakeClock();
    const watchers = new CacheWatchers({ clock, bookmarkRevision: () => 50, random: () => 0 });
    watchers.start();
    const scope = { key: '/registry/configmaps/', recursive: true };
    const all = Array.from({ length: 1500 }, () => watchers.add({ scope, startRevision: 1, allowBookmarks: true, queueCapacity: 10 }));
    expect(watchers.scheduledBookmarks).toBe(1500);
    for (const watcher of all.slice(0, 1000)) watcher.stop();
    // 1000 stopped, 500 live: not yet more stopped than max(1000, live).
    expect([watchers.size, watchers.scheduledBookmarks]).toEqual([500, 1500]);
    all[1000]!.stop();
    expect([watchers.size, watchers.scheduledBookmarks]).toEqual([499, 499]);
    for (const watcher of all.slice(1001, 1200)) watcher.stop();
    expect([watchers.size, watchers.scheduledBookmarks]).toEqual([300, 499]);

    const live = all[1499]!;
    const received: StorageWatchEvent[] = [];
    void live.deliver((event) => (received.push(event), true));
    await clock.advance(61_000);
    expect(received.map((event) => [event.type, (event.object as KubeObject).metadata.resourceVersion])).toEqual([['BOOKMARK', '50']]);
    // The bookmark tick dropped the stopped ones and rescheduled the live ones.
    expect(watchers.scheduledBookmarks).toBe(300);
    watchers.stop();
  });
});
