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

describe('CacheWatcher.deliver (push mode)', () => {
  const scope = { key: '/registry/configmaps/ns/', recursive: true };
  const change = (name: string, revision: number) =>
    new WatchCacheEvent('ADDED', `/registry/configmaps/ns/${name}`, object(name, revision), undefined, revision, 0);
  const watcherOf = (options: { initial?: KubeObject[]; queueCapacity?: number; allowBookmarks?: boolean } = {}) =>
    new CacheWatcher({
      scope,
      startRevision: 3,
      allowBookmarks: options.allowBookmarks ?? false,
      queueCapacity: options.queueCapacity ?? 10,
      initialState: options.initial,
      onStop: () => {},
    });

  it('hands over the initial events, then queued live ones, then live ones synchronously as they are dispatched', async () => {
    const watcher = watcherOf({ initial: [object('a', 2)] });
    watcher.dispatch(change('b', 4));
    const names: string[] = [];
    const delivery = watcher.deliver((event) => (names.push(nameOf(event) ?? ''), true));
    expect(names).toEqual(['a', 'b']);
    watcher.dispatch(change('c', 5));
    // No await: the event reached the receiver inside dispatch.
    expect(names).toEqual(['a', 'b', 'c']);
    watcher.stop();
    expect(await delivery).toBe(false);
  });

  it('queues while the receiver is paused and resumes in order', async () => {
    const watcher = watcherOf();
    const names: string[] = [];
    let flowing = true;
    const receive = (event: { object: unknown }) => (names.push(nameOf(event) ?? ''), flowing);
    const first = watcher.deliver(receive);
    flowing = false;
    watcher.dispatch(change('a', 4));
    expect(await first).toBe(true);
    watcher.dispatch(change('b', 5));
    watcher.dispatch(change('c', 6));
    expect(names).toEqual(['a']);
    flowing = true;
    const second = watcher.deliver(receive);
    expect(names).toEqual(['a', 'b', 'c']);
    watcher.dispatch(change('d', 7));
    expect(names).toEqual(['a', 'b', 'c', 'd']);
    watcher.stop();
    expect(await second).toBe(false);
  });

  it('closes itself when its paused consumer falls queueCapacity behind', async () => {
    const watcher = watcherOf({ queueCapacity: 2 });
    const delivery = watcher.deliver(() => false);
    watcher.dispatch(change('a', 4));
    expect(await delivery).toBe(true);
    watcher.dispatch(change('b', 5));
    watcher.dispatch(change('c', 6));
    expect(watcher.closed).toBe(false);
    watcher.dispatch(change('d', 7));
    expect(watcher.overflowed).toBe(true);
    expect(await watcher.deliver(() => true)).toBe(false);
  });

  it('hands the final bookmark to an attached receiver, then ends', async () => {
    const watcher = watcherOf({ allowBookmarks: true });
    const types: string[] = [];
    const delivery = watcher.deliver((event) => (types.push(event.type), true));
    watcher.close({ event: { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }, revision: 9 });
    expect(types).toEqual(['BOOKMARK']);
    expect(await delivery).toBe(false);
  });
});
