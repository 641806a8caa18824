import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import { CacheWatcher } from './cache-watcher.js';
import { WatchCacheEvent } from './watch-cache-event.js';

const object = (name: string, resourceVersion: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: String(resourceVersion) },
});
const nameOf = (event: { object: unknown }) => (event.object as KubeObject).metadata.name;

describe('CacheWatcher.takeBuffered', () => {
  it('hands over the initial events, then queued live ones, in order and without waiting', async () => {
    const watcher = new CacheWatcher({
      scope: { key: '/registry/configmaps/ns/', recursive: true },
      startRevision: 3,
      allowBookmarks: false,
      queueCapacity: 10,
      initialState: [object('a', 2), object('b', 3)],
      onStop: () => {},
    });
    for (const [name, revision] of [['c', 4], ['d', 5]] as const) {
      watcher.dispatch(new WatchCacheEvent('ADDED', `/registry/configmaps/ns/${name}`, object(name, revision), undefined, revision, 0));
    }
    const iterator = watcher[Symbol.asyncIterator]();
    expect(nameOf((await iterator.next()).value)).toBe('a');
    expect(watcher.takeBuffered(2).map(nameOf)).toEqual(['b', 'c']);
    expect(watcher.takeBuffered().map(nameOf)).toEqual(['d']);
    expect(watcher.takeBuffered()).toEqual([]);
    watcher.stop();
    expect(watcher.takeBuffered()).toEqual([]);
    expect((await iterator.next()).done).toBe(true);
  });
});
