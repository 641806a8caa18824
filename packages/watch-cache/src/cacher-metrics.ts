/**
 * Hooks a {@link Cacher} calls for its metrics (upstream `apiserver_watch_cache_*` and
 * `etcd_bookmark_counts`); every hook is optional and must be cheap (it runs on the event path).
 */
export interface CacherMetrics {
  /** A change reached the cache from the storage; `revision` is the cache's revision after it. */
  eventReceived?(revision: number): void;
  /** A progress notification (storage bookmark) reached the cache; `revision` is the cache's revision after it. */
  progressReceived?(revision: number): void;
  /** The cache became ready after a (re)initialization. */
  initialized?(): void;
  /**
   * A consistent LIST (`RV=""`) the cache could serve was answered: from the cache, or (`fallback`) by the
   * storage because the cache did not catch up in time; `success` is false when it failed.
   */
  consistentRead?(success: boolean, fallback: boolean): void;
}
