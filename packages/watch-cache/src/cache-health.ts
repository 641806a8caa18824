import type { CacheWatchers } from './cache-watchers.js';
import type { WatchCache } from './watch-cache.js';

/** A snapshot of a watch cache's health, for metrics and consoles (times are the cacher clock's milliseconds). */
export interface WatchCacheHealth {
  /** The revision the cache is synced to. */
  resourceVersion: number;
  /** The oldest revision a watch can resume from without a 410 (the start of the history window). */
  oldestResourceVersion: number;
  /** Events held in the history. */
  historyEvents: number;
  /** The history's current capacity (it adapts between the min and max history). */
  historyCapacity: number;
  /** When the oldest event held was recorded; absent while the history is empty. */
  oldestEventTime?: number;
  /** Open watches served by the cache. */
  watchers: number;
  /** When the cache last sent a bookmark or progress notification to a watcher; absent before the first. */
  lastBookmarkTime?: number;
}

/** The health of `cache` and its `watchers`. */
export function cacheHealth(cache: WatchCache, watchers: CacheWatchers): WatchCacheHealth {
  const { history } = cache;
  const health: WatchCacheHealth = {
    resourceVersion: cache.resourceVersion,
    oldestResourceVersion: history.oldestWatchableRevision(),
    historyEvents: history.size,
    historyCapacity: history.capacity,
    watchers: watchers.size,
  };
  const oldest = history.oldest;
  if (oldest) health.oldestEventTime = oldest.recordTime;
  if (watchers.lastBookmarkTime !== undefined) health.lastBookmarkTime = watchers.lastBookmarkTime;
  return health;
}
