export { Cacher, FRESHNESS_TIMEOUT_MS } from './cacher.js';
export type { CacherOptions, CacherWatchOptions } from './cacher-options.js';
export { goDuration } from './cacher-options.js';
export type { Clock, TimerHandle } from './clock.js';
export { realClock, FakeClock, flushMicrotasks } from './clock.js';
export type { IndexFunc, Indexers, KeyScope } from './cache-store.js';
export { CacheStore } from './cache-store.js';
export type { CacheWatcherOptions } from './cache-watcher.js';
export { CacheWatcher } from './cache-watcher.js';
export type { WatchCacheEventType } from './watch-cache-event.js';
export { WatchCacheEvent } from './watch-cache-event.js';
export type { WatchCacheHistoryOptions } from './watch-cache-history.js';
export {
  WatchCacheHistory,
  DEFAULT_EVENT_FRESH_DURATION_MS,
  DEFAULT_MIN_HISTORY,
  DEFAULT_MAX_HISTORY,
} from './watch-cache-history.js';
export type { WatchCacheOptions } from './watch-cache.js';
export { WatchCache } from './watch-cache.js';
export {
  BookmarkSchedule,
  JitteredTicker,
  nextBookmarkTime,
  BOOKMARK_FREQUENCY_MS,
  BOOKMARK_BEFORE_DEADLINE_MS,
  BOOKMARK_TICK_MS,
} from './bookmark-timer.js';
export { ReadyState, retryAfterForUnreadyCache } from './ready.js';
export { ConditionalProgressRequester, PROGRESS_REQUEST_PERIOD_MS } from './consistent-read.js';
export type { ListRoute } from './list-routing.js';
export { routeList, parseResourceVersion } from './list-routing.js';
export { watcherQueueCapacity } from './selection.js';
export { cachedSerialization } from './serialization-cache.js';
