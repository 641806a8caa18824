import type { KubeObject } from '@kapi/apimachinery';
import type { StorageWatchEvent } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { WatchCache } from './watch-cache.js';

const configMap = (name: string, resourceVersion: number, data: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: String(resourceVersion) },
  data: { value: data },
});

function newCache() {
  const events: Array<{ type: string; previous: KubeObject | undefined }> = [];
  const cache = new WatchCache({
    clock: new FakeClock(),
    keyOf: (object) => `/registry/configmaps/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`,
    history: { freshDurationMs: 60_000, minCapacity: 8, maxCapacity: 64 },
    onEvent: (event) => events.push({ type: event.type, previous: event.previousObject }),
    onReplayComplete: () => undefined,
  });
  cache.replace([], 1);
  return { cache, events };
}

/** A MODIFIED event whose previous object counts how often it is read (the storage decodes it lazily). */
function modified(object: KubeObject, previous: KubeObject) {
  let reads = 0;
  const event = { type: 'MODIFIED', object } as StorageWatchEvent;
  Object.defineProperty(event, 'previousObject', {
    enumerable: true,
    get: () => {
      reads += 1;
      return previous;
    },
  });
  return { event, reads: () => reads };
}

describe('WatchCache.processEvent', () => {
  it('completes a deletion known only by its key (a watch without previous values) from the state', () => {
    const { cache, events } = newCache();
    const a = configMap('a', 2, 'one');
    cache.processEvent({ type: 'ADDED', object: a });
    cache.processEvent({ type: 'DELETED', object: { metadata: { resourceVersion: '3' } } as KubeObject, key: '/registry/configmaps/default/a' });
    expect(cache.store.get('/registry/configmaps/default/a')).toBeUndefined();
    expect(cache.resourceVersion).toBe(3);
    const [, deleted] = cache.eventsSince(1);
    expect(deleted?.type).toBe('DELETED');
    expect(deleted?.object).toEqual({ ...a, metadata: { ...a.metadata, resourceVersion: '3' } });
    expect(deleted?.previousObject).toBe(a);
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'DELETED']);
    // A key the cache never held: nothing to delete, nothing sent.
    cache.processEvent({ type: 'DELETED', object: { metadata: { resourceVersion: '4' } } as KubeObject, key: '/registry/configmaps/default/zz' });
    expect(events).toHaveLength(2);
    expect(cache.eventsSince(1)).toHaveLength(2);
  });

  it('does not read the event previous object when the state holds the key (no decryption of the old value)', () => {
    const { cache, events } = newCache();
    const first = configMap('a', 2, 'one');
    cache.processEvent({ type: 'ADDED', object: first });
    const update = modified(configMap('a', 3, 'two'), configMap('a', 2, 'decoded again'));
    cache.processEvent(update.event);
    expect(update.reads()).toBe(0);
    expect(events[1]?.previous).toBe(first);
  });

  it('takes the event previous object when the state does not hold the key', () => {
    const { cache, events } = newCache();
    const previous = configMap('b', 2, 'one');
    const update = modified(configMap('b', 3, 'two'), previous);
    cache.processEvent(update.event);
    expect(update.reads()).toBe(1);
    expect(events[0]?.previous).toBe(previous);
  });
});
