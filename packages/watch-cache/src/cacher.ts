import { StatusError, toStatus, type KubeObject } from '@kapi/apimachinery';
import {
  StorageError,
  WatchChannel,
  encodeContinueToken,
  isCompactor,
  isProgressRequester,
  isRevisionReader,
  predicateHasSelectors,
  type Closer,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type GuaranteedUpdateOptions,
  type Interface,
  type ListOptions,
  type ListResult,
  type ProgressRequester,
  type RevisionReader,
  type SelectionPredicate,
  type StorageWatchEvent,
  type Watch,
} from '@kapi/storage';
import { cacheHealth, type WatchCacheHealth } from './cache-health.js';
import { CacheReflector } from './cache-reflector.js';
import { directoryOf, inScope, type KeyScope } from './cache-store.js';
import { CacheWatchers, bookmarkEvent } from './cache-watchers.js';
import type { CacherMetrics } from './cacher-metrics.js';
import { resolveCacherOptions, type CacherOptions, type CacherWatchOptions, type ResolvedCacherOptions } from './cacher-options.js';
import { ConditionalProgressRequester, waitForConsistentRevision, type ConsistentReadStorage } from './consistent-read.js';
import { parseResourceVersion, routeList } from './list-routing.js';
import { ReadyState } from './ready.js';
import { RevisionBatch } from './revision-batch.js';
import { ObjectMatcher, watcherQueueCapacity } from './selection.js';
import { WatchCache } from './watch-cache.js';
import type { WatchCacheEvent } from './watch-cache-event.js';

/** How long a read waits for the cache to reach the revision it asks for (blockTimeout). */
export const FRESHNESS_TIMEOUT_MS = 3_000;

/**
 * The watch cache (k8s.io/apiserver cacher): implements the storage {@link Interface} over another one.
 * It lists and watches the resource's prefix once and serves watches and most reads from memory;
 * writes go through to the storage. Progress notifications from the backend advance the cache revision
 * (KEP-1904), watchers get periodic bookmarks and a final one on stop, and the backend's retained
 * history is replayed on start so that watches resume after a restart without relisting.
 *
 * Objects returned by reads and watches served from the cache are shared (between requests and between
 * watchers, so that each is serialized once per encoding: see `cachedSerialization`) and must be
 * treated as read-only.
 */
export class Cacher implements Interface, ProgressRequester, RevisionReader, Closer {
  private readonly options: ResolvedCacherOptions;
  private readonly storage: Interface;
  private readonly cache: WatchCache;
  private readonly ready: ReadyState;
  private readonly reflector: CacheReflector;
  private readonly matcher: ObjectMatcher;
  private readonly watchers: CacheWatchers;
  private readonly consistentStorage: ConsistentReadStorage | undefined;
  private readonly progressRequester: ConditionalProgressRequester | undefined;
  /** The storage's revision for consistent GETs, read once per turn of the event loop. */
  private readonly consistentGetRevision: RevisionBatch | undefined;
  private readonly metrics: CacherMetrics | undefined;
  private started = false;
  private stopping: Promise<void> | undefined;
  private failure: unknown;

  constructor(options: CacherOptions) {
    this.options = resolveCacherOptions(options);
    const { storage, clock } = this.options;
    this.storage = storage;
    this.ready = new ReadyState(clock);
    const { metrics } = options;
    this.metrics = metrics;
    const becameReady = (): void => {
      this.ready.setReady();
      metrics?.initialized?.();
    };
    this.matcher = new ObjectMatcher(this.options.getAttributes);
    this.watchers = new CacheWatchers({
      clock,
      random: this.options.random,
      bookmarkRevision: () => (this.ready.isReady && this.cache.resourceVersion > 0 ? this.cache.resourceVersion : undefined),
    });
    this.cache = new WatchCache({
      clock,
      keyOf: this.options.keyFunc,
      indexers: this.options.indexers,
      history: {
        freshDurationMs: this.options.eventsHistoryWindowMs,
        minCapacity: this.options.minHistory,
        maxCapacity: this.options.maxHistory,
      },
      onEvent: (event) => {
        metrics?.eventReceived?.(event.resourceVersion);
        this.watchers.dispatch(event);
      },
      onProgress: (revision) => {
        metrics?.progressReceived?.(revision);
        this.watchers.dispatchProgress(revision);
      },
      onReplayComplete: becameReady,
    });
    this.reflector = new CacheReflector({
      storage,
      prefix: this.options.resourcePrefix,
      cache: this.cache,
      clock,
      progressNotify: this.options.progressNotify,
      loadHistory: this.options.loadHistory,
      retryDelayMs: this.options.retryDelayMs,
      replayTimeoutMs: this.options.historyLoadTimeoutMs,
      listPageSize: this.options.listPageSize,
      onReady: becameReady,
      onReinitialize: (reason) => this.reinitialize(reason),
      onError: (error) => this.recordError(error),
      onWatchError: (status) => this.watchers.failAll(status),
    });
    // Consistent reads from the cache need the backend's progress notifications on the cache's watch.
    if (this.options.progressNotify && isProgressRequester(storage) && isRevisionReader(storage)) {
      this.consistentStorage = storage;
      this.progressRequester = new ConditionalProgressRequester(storage, clock, undefined, (error) => this.recordError(error), this.options.resourcePrefix);
      this.consistentGetRevision = new RevisionBatch(() => storage.getCurrentResourceVersion());
    }
  }

  /**
   * Starts filling the cache; resolves once it is ready to serve (rejects if stopped first). Need not be
   * awaited: until ready, requests are answered as described on {@link get}, {@link getList} and {@link watch}.
   */
  start(): Promise<void> {
    if (!this.started && !this.stopping) {
      this.started = true;
      this.reflector.start();
      this.watchers.start();
    }
    const ready = this.ready.wait();
    ready.catch(() => undefined);
    return ready;
  }

  /** Resolves once the cache is ready. */
  waitUntilReady(): Promise<void> {
    return this.ready.wait();
  }

  /** True while the cache can serve reads and watches. */
  get isReady(): boolean {
    return this.ready.isReady;
  }

  /** The revision the cache is synced to. */
  get resourceVersion(): number {
    return this.cache.resourceVersion;
  }

  /** The cache's history window, watcher count and last bookmark, read now (see {@link WatchCacheHealth}). */
  get health(): WatchCacheHealth {
    return cacheHealth(this.cache, this.watchers);
  }

  /** The last failure while filling the cache (retried), for diagnostics. */
  get lastError(): unknown {
    return this.failure;
  }

  /**
   * Stops the cache. Bookmark-enabled watchers first get a final BOOKMARK at the latest revision (after
   * a short wait for the cache to catch up with the backend), then every watch stream ends.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  close(): Promise<void> {
    return this.stop();
  }

  create(key: string, object: KubeObject, options?: CreateOptions): Promise<KubeObject> {
    return this.storage.create(key, object, options);
  }

  /**
   * DELETE through to the storage, starting from the cached object. Not with `validateDeletion`: a
   * validation failing on a stale copy would run a second time on the fresh one.
   */
  delete(key: string, options: DeleteOptions = {}): Promise<KubeObject> {
    const cachedExistingObject = options.cachedExistingObject ?? (options.validateDeletion ? undefined : this.cachedObject(key));
    return this.storage.delete(key, cachedExistingObject ? { ...options, cachedExistingObject } : options);
  }

  guaranteedUpdate(key: string, options: GuaranteedUpdateOptions): Promise<KubeObject> {
    const cachedExistingObject = options.cachedExistingObject ?? this.cachedObject(key);
    return this.storage.guaranteedUpdate(key, cachedExistingObject ? { ...options, cachedExistingObject } : options);
  }

  count(key: string): Promise<number> {
    return this.storage.count(key);
  }

  async requestWatchProgress(key?: string): Promise<void> {
    if (isProgressRequester(this.storage)) await this.storage.requestWatchProgress(key);
  }

  /** As the storage's: a cache over a backend that cannot request progress cannot either. */
  get watchProgressSupported(): boolean {
    return isProgressRequester(this.storage);
  }

  async getCurrentResourceVersion(): Promise<number> {
    if (isRevisionReader(this.storage)) return this.storage.getCurrentResourceVersion();
    const list = await this.storage.getList(this.options.resourcePrefix, { recursive: true, predicate: { limit: 1 } });
    return Number(list.resourceVersion);
  }

  /**
   * GET: a revision is served from the cache once it has reached it (waiting up to 3 s, then 504 too
   * large). `RV=""` (a consistent read) reads the storage, as upstream does; with `consistentGetFromCache`
   * it is served from the cache once the cache has caught up with the storage's current revision, as
   * consistent LISTs are (KEP-2340), and from the storage when that cannot be done in time. Read by the
   * storage while the cache is not ready.
   */
  async get(key: string, options: GetOptions = {}): Promise<KubeObject | undefined> {
    const text = options.resourceVersion ?? '';
    const revision = text === '' ? 0 : parseResourceVersion(text);
    if (revision === undefined || !this.owns(key) || !this.ready.isReady) return this.storage.get(key, options);
    if (text === '') {
      const storage = this.consistentStorage;
      if (!storage || !this.options.consistentGetFromCache) return this.storage.get(key, options);
      // Usually the cache is already at the storage's revision: one await, no waiting machinery. The
      // revision is read once for all the GETs of this turn of the event loop, after they all arrived.
      const current = await (this.consistentGetRevision?.next() ?? storage.getCurrentResourceVersion());
      if (this.cache.resourceVersion < current && !(await this.caughtUpForConsistentRead(current))) return this.storage.get(key, options);
      if (!this.ready.isReady) return this.storage.get(key, options);
    } else if (revision > 0) await this.cache.waitUntilFresh(revision, FRESHNESS_TIMEOUT_MS);
    const object = this.cache.store.get(key);
    if (object) return object;
    if (options.ignoreNotFound) return undefined;
    throw StorageError.keyNotFound(key, this.cache.resourceVersion);
  }

  /**
   * LIST, routed as k8s.io/apiserver's delegator does (see {@link routeList}). While the cache is not
   * ready, a paged LIST without selectors goes to the storage and any other gets 429.
   */
  async getList(key: string, options: ListOptions = {}): Promise<ListResult> {
    const route = routeList(options, this.consistentStorage !== undefined);
    if (route.target === 'storage' || !this.owns(key)) return this.storage.getList(key, options);
    if (!this.ready.isReady) {
      const limit = options.predicate?.limit ?? 0;
      if (limit > 0 && !predicateHasSelectors(options.predicate)) return this.storage.getList(key, options);
      this.ready.check();
    }
    if (route.wait === 'revision') await this.cache.waitUntilFresh(route.revision, FRESHNESS_TIMEOUT_MS);
    if (route.wait === 'consistent') return this.consistentList(key, options, route.limit);
    return this.listFromCache(key, options, route.wait === 'revision' ? route.limit : 0);
  }

  /** A consistent LIST: from the cache once it has caught up with the storage, else by the storage. */
  private async consistentList(key: string, options: ListOptions, limit: number): Promise<ListResult> {
    const metrics = this.metrics;
    let fallback = false;
    try {
      fallback = !(await this.caughtUpForConsistentRead());
      const result = fallback ? await this.storage.getList(key, options) : this.listFromCache(key, options, limit);
      metrics?.consistentRead?.(true, fallback);
      return result;
    } catch (error) {
      metrics?.consistentRead?.(false, fallback);
      throw error;
    }
  }

  /** The cache's items in `key` (recursive: the first `limit` with a continue token, when `limit` is set). */
  private listFromCache(key: string, options: ListOptions, limit: number): ListResult {
    const scope: KeyScope = { key, recursive: options.recursive ?? false };
    const filter = this.matcher.filterFor(options.predicate);
    const indexed = this.indexFor(options.predicate);
    const revision = this.cache.resourceVersion;
    if (limit > 0 && scope.recursive && filter === undefined && indexed === undefined) {
      // Unfiltered: the page's objects are read, and the others only counted.
      const { items, total } = this.cache.store.first(scope, limit);
      return total > limit ? this.page(scope, items, total - limit, revision, true) : { items, resourceVersion: String(revision) };
    }
    const candidates = this.cache.store.list(scope, indexed);
    const items = filter ? candidates.filter(filter) : candidates;
    if (limit > 0 && items.length > limit && scope.recursive) return this.page(scope, items.slice(0, limit), items.length - limit, revision, filter === undefined);
    return { items, resourceVersion: String(revision) };
  }

  /** A page of `items` with a continue token for the `remaining` items after them (read by the storage at `revision`). */
  private page(scope: KeyScope, items: KubeObject[], remaining: number, revision: number, unfiltered: boolean): ListResult {
    const lastKey = this.options.keyFunc(items[items.length - 1] as KubeObject);
    const result: ListResult = {
      items,
      resourceVersion: String(revision),
      continue: encodeContinueToken(`${lastKey}\u0000`, directoryOf(scope.key), revision),
    };
    if (unfiltered) result.remainingItemCount = remaining;
    return result;
  }

  /**
   * WATCH from the cache. `RV="0"`/`""`: the state as ADDED, then changes (none with
   * `sendInitialEvents: false`). `RV=N`: the changes after N from the history (one 410 ERROR event when N
   * is older than the window). `sendInitialEvents: true` (watch-list): waits for the requested revision,
   * sends the state as ADDED and then a bookmark annotated `k8s.io/initial-events-end`. Rejects with 429
   * while the cache is not ready.
   */
  async watch(key: string, options: CacherWatchOptions = {}): Promise<Watch> {
    const text = options.resourceVersion ?? '';
    const revision = text === '' ? 0 : parseResourceVersion(text);
    if (revision === undefined || !this.owns(key)) return this.storage.watch(key, options);
    this.ready.check();
    const scope: KeyScope = { key, recursive: options.recursive ?? false };
    if (options.sendInitialEvents === true) return this.watchList(scope, text, revision, options);
    if (revision === 0) {
      if (options.sendInitialEvents === false) {
        // "From now": now is the backend's revision (the cache may not have seen the latest writes yet;
        // events up to that revision that reach it later are below the watcher's start and are skipped).
        const now = text === '' && isRevisionReader(this.storage) ? await this.storage.getCurrentResourceVersion() : 0;
        this.ready.check();
        return this.register(scope, options, Math.max(now, this.cache.resourceVersion), { state: [] });
      }
      return this.register(scope, options, this.cache.resourceVersion, { state: this.cache.store.list(scope) });
    }
    const compacted = await this.compactedBefore(revision);
    if (compacted !== undefined) return errorWatch(StatusError.expired(`too old resource version: ${revision} (${compacted})`));
    this.ready.check();
    let history: WatchCacheEvent[];
    try {
      history = this.cache.eventsSince(revision);
    } catch (error) {
      return errorWatch(error);
    }
    return this.register(scope, options, revision, { history });
  }

  /** With `followCompaction`, the storage's compacted revision when the changes after `revision` are gone from it. */
  private async compactedBefore(revision: number): Promise<number | undefined> {
    if (!this.options.followCompaction || !isCompactor(this.storage)) return undefined;
    const compacted = await this.storage.compactRevision();
    return revision + 1 < compacted ? compacted : undefined;
  }

  private async watchList(scope: KeyScope, text: string, revision: number, options: CacherWatchOptions): Promise<Watch> {
    if (text === '' && !this.consistentStorage) return this.watchListFromStorage(scope, options);
    try {
      if (text === '') await this.waitForConsistency();
      else if (revision > 0) await this.cache.waitUntilFresh(revision, FRESHNESS_TIMEOUT_MS);
    } catch (error) {
      return errorWatch(error);
    }
    this.ready.check();
    const snapshotRevision = this.cache.resourceVersion;
    const end = options.predicate?.allowWatchBookmarks ? bookmarkEvent(snapshotRevision, true) : undefined;
    return this.register(scope, options, snapshotRevision, { state: this.cache.store.list(scope), end });
  }

  /**
   * A watch-list at the latest revision when the backend answers no progress requests (etcd 3.4.23), so
   * the cache may be behind writes that returned: the state is a storage list at its revision R, then the
   * cache's history after R if the cache is past it; live events up to there are skipped.
   */
  private async watchListFromStorage(scope: KeyScope, options: CacherWatchOptions): Promise<Watch> {
    let listed: ListResult;
    try {
      listed = await this.storage.getList(scope.key, { recursive: scope.recursive });
    } catch (error) {
      return errorWatch(error);
    }
    this.ready.check();
    const listRevision = Number(listed.resourceVersion);
    let history: WatchCacheEvent[] = [];
    if (this.cache.resourceVersion > listRevision) {
      try {
        history = this.cache.eventsSince(listRevision);
      } catch (error) {
        return errorWatch(error);
      }
    }
    const startRevision = Math.max(listRevision, this.cache.resourceVersion);
    const end = options.predicate?.allowWatchBookmarks ? bookmarkEvent(startRevision, true) : undefined;
    return this.register(scope, options, startRevision, { state: listed.items, history, end });
  }

  /** Creates a watcher whose initial events are given, and subscribes it to live events in the same turn. */
  private register(
    scope: KeyScope,
    options: CacherWatchOptions,
    startRevision: number,
    initial: { state?: KubeObject[]; history?: WatchCacheEvent[]; end?: StorageWatchEvent | undefined },
  ): Watch {
    return this.watchers.add({
      scope,
      matches: this.matcher.filterFor(options.predicate),
      startRevision,
      allowBookmarks: options.predicate?.allowWatchBookmarks === true,
      progressNotify: options.progressNotify,
      deadline: options.deadline,
      queueCapacity: this.queueCapacity(),
      initialState: initial.state,
      initialHistory: initial.history,
      initialEventsEnd: initial.end,
      signal: options.signal,
    });
  }

  private async shutdown(): Promise<void> {
    const wasReady = this.ready.isReady;
    if (wasReady && this.consistentStorage && this.options.stopCatchUpTimeoutMs > 0) {
      await this.waitForConsistency(this.options.stopCatchUpTimeoutMs).catch(() => undefined);
    }
    this.ready.stop();
    await this.reflector.stop();
    const revision = this.cache.resourceVersion;
    this.watchers.stop(wasReady && revision > 0 ? revision : undefined);
    this.cache.rejectWaiters(StatusError.tooManyRequests('storage is (re)initializing: cacher stopped', 1));
  }

  /** The backend history no longer connects to the cache: end every watch (clients resume or relist). */
  private reinitialize(reason: unknown): void {
    this.recordError(reason);
    this.ready.setPending(reason);
    this.watchers.closeAll();
  }

  private recordError(error: unknown): void {
    this.failure = error;
    if (!this.ready.isReady) this.ready.setPending(error);
  }

  /**
   * Waits for the cache to catch up for a consistent read (with the storage's revision `current` when
   * already read); false when it cannot in time (read the storage then).
   */
  private async caughtUpForConsistentRead(current?: number): Promise<boolean> {
    try {
      await this.waitForConsistency(FRESHNESS_TIMEOUT_MS, current);
      return true;
    } catch (error) {
      if (StatusError.isInstance(error) && error.code === 504) return false;
      throw error;
    }
  }

  private waitForConsistency(timeoutMs = FRESHNESS_TIMEOUT_MS, current?: number): Promise<number> {
    const storage = this.consistentStorage;
    const requester = this.progressRequester;
    if (!storage || !requester) return Promise.resolve(this.cache.resourceVersion);
    return waitForConsistentRevision(storage, this.cache, requester, timeoutMs, current);
  }

  private queueCapacity(): number {
    return (
      this.options.watcherQueueCapacity ??
      watcherQueueCapacity(
        this.cache.history.capacity,
        this.options.eventsHistoryWindowMs,
        Object.keys(this.options.indexers).length > 0,
      )
    );
  }

  /** The index a list can use: an indexed field its field selector pins to one value. */
  private indexFor(predicate: SelectionPredicate | undefined): { field: string; value: string } | undefined {
    const field = predicate?.field;
    if (!field?.requiresExactMatch) return undefined;
    for (const name of Object.keys(this.options.indexers)) {
      const value = field.requiresExactMatch(name);
      if (value !== undefined) return { field: name, value };
    }
    return undefined;
  }

  /** True when `key` is inside the cached resource. */
  private owns(key: string): boolean {
    return key === this.options.resourcePrefix || inScope({ key: this.options.resourcePrefix, recursive: true }, key);
  }

  /** A private copy of the cached object at `key` for a write to start from, when the cache is ready. */
  /**
   * The cached object at `key` itself, not a copy: the storage reads a `cachedExistingObject` and hands
   * the update function its own copy (the object keeps the storage's "decoded stale" mark).
   */
  private cachedObject(key: string): KubeObject | undefined {
    if (!this.ready.isReady || !this.owns(key)) return undefined;
    return this.cache.store.get(key);
  }
}

/** A watch that delivers one ERROR event carrying the failure's Status, then ends. */
function errorWatch(error: unknown): Watch {
  const channel = new WatchChannel();
  channel.push({ type: 'ERROR', object: toStatus(error) });
  channel.close();
  return channel;
}
