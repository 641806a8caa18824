import { INITIAL_EVENTS_END_ANNOTATION, StatusError, toStatus, type KubeObject } from '@kapi/apimachinery';
import { predicateHasSelectors, predicateMatches, type ListOptions, type StorageWatchEvent, type Watch } from './interfaces.js';
import type { KVEvent, KVWatch } from './kv-backend.js';
import { isRevisionCompacted, parseResourceVersion } from './store-codec.js';
import type { StoreContext } from './store.js';
import { WatchChannel } from './watch-channel.js';

/** Page size of the initial-state read of a watch. */
const initialPageSize = 10000;

/**
 * `Store.watch`: the etcd3 watcher semantics. RV "0"/"" (or sendInitialEvents) sends the current state as
 * ADDED events and continues after it; RV N continues after N. Selector transitions become ADDED/DELETED;
 * progress notifications become BOOKMARKs when `progressNotify` is set.
 */
export async function storeWatch(store: StoreContext, key: string, options: ListOptions): Promise<Watch> {
  const recursive = options.recursive ?? false;
  const prefix = recursive && !key.endsWith('/') ? `${key}/` : key;
  const requested = parseResourceVersion(options.resourceVersion);
  const predicate = options.predicate;
  const acceptAll = !predicateHasSelectors(predicate);
  // Without selectors, a caller keeping its own state needs no previous values (see ListOptions.omitPrevious).
  const omitPrevious = options.omitPrevious === true && acceptAll;
  const sendInitialEvents = options.sendInitialEvents ?? requested === 0;
  const endBookmark = options.sendInitialEvents === true && predicate?.allowWatchBookmarks === true;

  let kvWatch: KVWatch | undefined;
  let watchEnded: (() => void) | undefined;
  const channel = new WatchChannel({
    onStop: () => {
      kvWatch?.cancel();
      watchEnded?.();
    },
    ...(options.signal ? { signal: options.signal } : {}),
  });

  const fail = (error: unknown): void => {
    channel.push({ type: 'ERROR', object: toStatus(error) });
    channel.close();
    kvWatch?.cancel();
  };

  let startRevision: number;
  if (sendInitialEvents) {
    let revision = 0;
    let startKey: string | undefined;
    try {
      for (;;) {
        const page = await store.kv.range({
          key: prefix,
          prefix: recursive,
          limit: initialPageSize,
          ...(revision > 0 ? { revision } : {}),
          ...(startKey !== undefined ? { startKey } : {}),
        });
        if (revision === 0) {
          revision = page.revision;
          if (requested > revision) throw StatusError.tooLargeResourceVersion(requested, revision);
        }
        for (const entry of page.entries) {
          const object = store.codec.decode(entry).object;
          if (predicateMatches(predicate, object)) channel.push({ type: 'ADDED', object });
        }
        const last = page.entries[page.entries.length - 1];
        if (!page.more || !last) break;
        startKey = `${last.key}\u0000`;
      }
    } catch (error) {
      if (StatusError.isInstance(error) && error.code === 504) throw error;
      fail(error);
      return channel;
    }
    if (endBookmark) {
      channel.push({
        type: 'BOOKMARK',
        object: { metadata: { resourceVersion: String(revision), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } },
      });
    }
    startRevision = revision + 1;
  } else if (requested === 0) {
    startRevision = (await store.kv.currentRevision()) + 1;
  } else {
    startRevision = requested + 1;
  }
  if (channel.closed) return channel;

  const transform = (event: KVEvent): StorageWatchEvent | undefined => {
    const revision = event.entry.modRevision;
    if (event.type === 'delete') {
      if (!event.previous) {
        return omitPrevious ? { type: 'DELETED', object: { metadata: { resourceVersion: String(revision) } }, key: event.entry.key } : undefined;
      }
      const previousObject = store.codec.decode(event.previous).object;
      if (!predicateMatches(predicate, previousObject)) return undefined;
      return { type: 'DELETED', object: withResourceVersion(previousObject, revision), previousObject };
    }
    const object = store.codec.decodeEvent(event.entry);
    const previous = event.previous;
    if (!previous) {
      // Without previous values, a put is a creation when the key was created at this very revision.
      if (omitPrevious && event.entry.createRevision !== event.entry.modRevision) return { type: 'MODIFIED', object };
      return predicateMatches(predicate, object) ? { type: 'ADDED', object } : undefined;
    }
    if (acceptAll) return modifiedWithLazyPrevious(object, () => store.codec.decode(previous).object);
    const previousObject = store.codec.decode(previous).object;
    const matches = predicateMatches(predicate, object);
    const matched = predicateMatches(predicate, previousObject);
    if (matches && matched) return { type: 'MODIFIED', object, previousObject };
    if (matches) return { type: 'ADDED', object };
    if (matched) return { type: 'DELETED', object: withResourceVersion(previousObject, revision), previousObject };
    return undefined;
  };

  watchEnded = store.codec.watchStarted();
  kvWatch = store.kv.watch(
    { key: prefix, prefix: recursive, startRevision, progressNotify: options.progressNotify ?? false, previous: !omitPrevious },
    {
      onEvents(events) {
        if (channel.closed) return;
        for (const event of events) {
          let result: StorageWatchEvent | undefined;
          try {
            result = transform(event);
          } catch (error) {
            fail(error);
            return;
          }
          if (result && !channel.push(result)) return;
        }
      },
      onProgress(revision) {
        if (options.progressNotify && !channel.closed) {
          channel.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(revision) } } });
        }
      },
      onError(error) {
        if (channel.closed) return;
        if (isRevisionCompacted(error)) {
          fail(StatusError.expired(`too old resource version: ${requested} (${error.compactedRevision})`));
        } else {
          fail(error);
        }
      },
    },
  );
  if (channel.closed) {
    kvWatch.cancel();
    watchEnded();
  }
  return channel;
}

function withResourceVersion(object: KubeObject, revision: number): KubeObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
}

/**
 * MODIFIED whose `previousObject` is decoded when first read: a watcher without selectors (the watch
 * cache, which keeps its own copy of the previous state) then never decrypts and parses it. Undefined
 * when the previous value cannot be decoded (the event's own object could).
 */
function modifiedWithLazyPrevious(object: KubeObject, decodePrevious: () => KubeObject): StorageWatchEvent {
  let previousObject: KubeObject | undefined;
  let decoded = false;
  const event: StorageWatchEvent = { type: 'MODIFIED', object };
  return Object.defineProperty(event, 'previousObject', {
    enumerable: true,
    get(): KubeObject | undefined {
      if (!decoded) {
        decoded = true;
        try {
          previousObject = decodePrevious();
        } catch {
          previousObject = undefined;
        }
      }
      return previousObject;
    },
  });
}
