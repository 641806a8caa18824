import type { KubeObject } from '@kapi/apimachinery';
import type { AttributesFunc, Interface, ListOptions } from '@kapi/storage';
import type { CacherMetrics } from './cacher-metrics.js';
import type { Indexers } from './cache-store.js';
import { realClock, type Clock } from './clock.js';
import { defaultKeyFunc } from './selection.js';
import { DEFAULT_EVENT_FRESH_DURATION_MS, DEFAULT_MAX_HISTORY, DEFAULT_MIN_HISTORY } from './watch-cache-history.js';

/** Upstream's storageWatchListPageSize: objects per page of the cache's list of the storage. */
export const STORAGE_WATCH_LIST_PAGE_SIZE = 10_000;

/** Options of a {@link Cacher}. */
export interface CacherOptions {
  /** The storage the cache reads from and writes through to. */
  storage: Interface;
  /** The key prefix of the resource (e.g. `/registry/pods`); requests outside it go to the storage. */
  resourcePrefix: string;
  /** The storage key of an object. Default: `<prefix>/<namespace>/<name>`, or `<prefix>/<name>` when cluster-scoped. */
  keyFunc?: (object: KubeObject) => string;
  /** Labels and fields of an object for selectors. Default: labels, `metadata.name`, `metadata.namespace`. */
  getAttributes?: AttributesFunc;
  /** Secondary indexes by field name, used by lists whose field selector pins that field. */
  indexers?: Indexers;
  clock?: Clock;
  /** Events younger than this stay in the history. Default 75 s, the minimum. */
  eventsHistoryWindowMs?: number;
  /** Smallest history capacity. Default 100. */
  minHistory?: number;
  /** Largest history capacity. Default 102,400, scaled by 2^ceil(log2(window / 75 s)). */
  maxHistory?: number;
  /**
   * Replay the backend's retained history on start, so old-but-uncompacted watches resume. Default true.
   * Needs `progressNotify` (a progress notification tells when the replay has caught up). A backend that
   * has never compacted is not listed: the replay of its whole log builds the state and the history.
   */
  loadHistory?: boolean;
  /**
   * Answer a watch from a revision the storage has compacted with 410, as the storage does, even when
   * the cache still holds those events (costs one `compactRevision()` call per watch from a revision).
   * Cached and uncached servers then agree on which revisions can be resumed. Default true.
   */
  followCompaction?: boolean;
  /** How long replaying the backend's history on start may take before it is given up. Default 10 s. */
  historyLoadTimeoutMs?: number;
  /**
   * Objects per page of the cache's (re)list of the storage, all pages at the first one's revision
   * (upstream's storageWatchListPageSize): no single response holds the whole resource. When a page's
   * revision has been compacted meanwhile, the cache lists again in one call. Default 10,000; 0 lists in
   * one call.
   */
  listPageSize?: number;
  /** Watch the backend with progress notifications (they advance the cache revision). Default true. */
  progressNotify?: boolean;
  /** Events a watcher may have queued before it is closed. Default from the history capacity (see `watcherQueueCapacity`). */
  watcherQueueCapacity?: number;
  /** Pause before retrying a failed list or a broken backend watch. Default 1000 ms. */
  retryDelayMs?: number;
  /** On stop, how long to wait for the cache to catch up with the backend before the final bookmarks. Default 1000 ms; 0 disables. */
  stopCatchUpTimeoutMs?: number;
  /** Random source for the bookmark timer's jitter. */
  random?: () => number;
  /**
   * Serve GETs with `RV=""` from the cache once it has caught up with the storage's current revision,
   * as consistent LISTs are (KEP-2340), instead of reading the storage as upstream does. Worth it where
   * reading the current revision and requesting progress cost less than reading the object (an
   * embedded store); with etcd it trades one round trip for two. Default false.
   */
  consistentGetFromCache?: boolean;
  /** Hooks for the cache's metrics. */
  metrics?: CacherMetrics;
}

/** Watch options the cacher understands beyond {@link ListOptions}. */
export interface CacherWatchOptions extends ListOptions {
  /** When the caller will end the watch (clock milliseconds): a bookmark is sent 2 s before it. */
  deadline?: number;
}

/** {@link CacherOptions} with defaults applied. */
export interface ResolvedCacherOptions {
  storage: Interface;
  resourcePrefix: string;
  keyFunc: (object: KubeObject) => string;
  getAttributes: AttributesFunc | undefined;
  indexers: Indexers;
  clock: Clock;
  eventsHistoryWindowMs: number;
  minHistory: number;
  maxHistory: number;
  loadHistory: boolean;
  historyLoadTimeoutMs: number;
  listPageSize: number;
  followCompaction: boolean;
  progressNotify: boolean;
  watcherQueueCapacity: number | undefined;
  retryDelayMs: number;
  stopCatchUpTimeoutMs: number;
  consistentGetFromCache: boolean;
  random: () => number;
}

/** Applies defaults and validates; throws on a history window below 75 s, as upstream does. */
export function resolveCacherOptions(options: CacherOptions): ResolvedCacherOptions {
  const window = options.eventsHistoryWindowMs ?? DEFAULT_EVENT_FRESH_DURATION_MS;
  if (window < DEFAULT_EVENT_FRESH_DURATION_MS) {
    throw new Error(
      `config.EventsHistoryWindow (${goDuration(window)}) must not be below ${goDuration(DEFAULT_EVENT_FRESH_DURATION_MS)}`,
    );
  }
  const scale = 2 ** Math.max(0, Math.ceil(Math.log2(window / DEFAULT_EVENT_FRESH_DURATION_MS)));
  const resourcePrefix = options.resourcePrefix.endsWith('/') ? options.resourcePrefix.slice(0, -1) : options.resourcePrefix;
  return {
    storage: options.storage,
    resourcePrefix,
    keyFunc: options.keyFunc ?? defaultKeyFunc(resourcePrefix),
    getAttributes: options.getAttributes,
    indexers: options.indexers ?? {},
    clock: options.clock ?? realClock,
    eventsHistoryWindowMs: window,
    minHistory: options.minHistory ?? DEFAULT_MIN_HISTORY,
    maxHistory: options.maxHistory ?? DEFAULT_MAX_HISTORY * scale,
    loadHistory: options.loadHistory ?? true,
    historyLoadTimeoutMs: options.historyLoadTimeoutMs ?? 10_000,
    listPageSize: options.listPageSize ?? STORAGE_WATCH_LIST_PAGE_SIZE,
    followCompaction: options.followCompaction ?? true,
    progressNotify: options.progressNotify ?? true,
    watcherQueueCapacity: options.watcherQueueCapacity,
    retryDelayMs: options.retryDelayMs ?? 1000,
    stopCatchUpTimeoutMs: options.stopCatchUpTimeoutMs ?? 1000,
    random: options.random ?? Math.random,
    consistentGetFromCache: options.consistentGetFromCache ?? false,
  };
}

/** Formats milliseconds as Go's time.Duration String (`1m15s`, `500ms`, `1h0m0s`). */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const totalSeconds = ms / 1000;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = Number((totalSeconds % 60).toFixed(3));
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
