import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { StorageWatchEvent } from '@kapi/storage';
import { CacheStore, type Indexers } from './cache-store.js';
import type { Clock, TimerHandle } from './clock.js';
import { WatchCacheEvent, type WatchCacheEventType } from './watch-cache-event.js';
import { WatchCacheHistory, type WatchCacheHistoryOptions } from './watch-cache-history.js';

/** Options of a {@link WatchCache}. */
export interface WatchCacheOptions {
  clock: Clock;
  /** The storage key of an object. */
  keyOf: (object: KubeObject) => string;
  indexers?: Indexers;
  history: WatchCacheHistoryOptions;
  /** Receives every live change once it is applied (not the changes replayed into the history). */
  onEvent: (event: WatchCacheEvent) => void;
  /** Receives every progress notification of the backend, once applied (the revision may not have moved). */
  onProgress?: (revision: number) => void;
  /** Called once the history replay started by {@link WatchCache.replace} has caught up. */
  onReplayComplete: () => void;
}

interface FreshnessWaiter {
  revision: number;
  resolve: () => void;
  reject: (error: unknown) => void;
  timer: TimerHandle;
}

/** Parses a resourceVersion carried by an object (absent or malformed: 0). */
export function objectRevision(object: { metadata?: { resourceVersion?: string } }): number {
  const revision = Number(object.metadata?.resourceVersion ?? 0);
  return Number.isSafeInteger(revision) && revision > 0 ? revision : 0;
}

/**
 * The cache proper: the current state (a {@link CacheStore}), the recent event history, and the revision
 * the cache is synced to (advanced by events and by the backend's progress notifications).
 */
export class WatchCache {
  readonly store: CacheStore;
  readonly history: WatchCacheHistory;
  private revision = 0;
  /** While replaying old history after a (re)list: the list revision the replay must reach. */
  private replayUntil = 0;
  /** The replay builds the state too (it covers every event the backend ever had): see {@link replayAll}. */
  private replayFillsState = false;
  private readonly waiters = new Set<FreshnessWaiter>();

  constructor(private readonly options: WatchCacheOptions) {
    this.store = new CacheStore(options.indexers);
    this.history = new WatchCacheHistory(options.history);
  }

  /** The revision the cache is synced to. */
  get resourceVersion(): number {
    return this.revision;
  }

  /** True while events older than the list are being replayed into the history. */
  get replaying(): boolean {
    return this.replayUntil > 0;
  }

  /** True while a {@link replayAll} replay is building the state (the state is incomplete until it ends). */
  get replayingState(): boolean {
    return this.replayFillsState;
  }

  /**
   * Resets the cache to a list taken at `listRevision`. With `historyBase` below it, the events in
   * (historyBase, listRevision] are expected next (a replay); they fill the history without touching the
   * state, and `onReplayComplete` fires once the replay reaches `listRevision`.
   */
  replace(objects: readonly KubeObject[], listRevision: number, historyBase = listRevision): void {
    this.store.replaceObjects(objects, this.options.keyOf);
    this.history.reset(Math.min(historyBase, listRevision));
    this.revision = listRevision;
    this.replayUntil = historyBase < listRevision ? listRevision : 0;
    this.replayFillsState = false;
    this.notifyWaiters();
  }

  /**
   * Resets the cache to empty at `revision`, expecting every event of the backend's log up to it next
   * (a backend that has never compacted holds them all): the replay builds the state and the history at
   * once, so a cold start reads and decodes each stored object once, not once for a list and again for
   * the history. `onReplayComplete` fires once the replay reaches `revision`.
   */
  replayAll(revision: number): void {
    this.replace([], revision, 1);
    this.replayFillsState = this.replayUntil > 0;
  }

  /**
   * Applies one event from the backend watch (BOOKMARK and ERROR are not events for this method). A
   * deletion known only by its key (a watch without previous values) takes its last state from the cache.
   */
  processEvent(event: StorageWatchEvent): void {
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') return;
    let object = event.object as KubeObject;
    const revision = objectRevision(object);
    let key: string;
    if (event.key === undefined) {
      // A deletion stripped to its revision by a storage wrapper that lost its key: nothing to go on.
      if (object.metadata?.name === undefined) return;
      key = this.options.keyOf(object);
    } else {
      key = event.key;
      const last = this.store.get(key);
      // Not in the cache, so no watcher saw it either: nothing to delete (a later event or progress
      // notification moves the revision on).
      if (!last) return;
      object = { ...last, metadata: { ...last.metadata, resourceVersion: String(revision) } };
    }
    const now = this.options.clock.now();
    if (this.replayUntil > 0) {
      if (revision <= this.replayUntil) {
        if (this.replayFillsState) this.history.add(this.applyToState(event.type, event, key, object, revision, now));
        else this.history.add(new WatchCacheEvent(event.type, key, this.shared(key, object), event.previousObject, revision, now));
        if (revision === this.replayUntil) this.finishReplay();
        return;
      }
      this.finishReplay();
    }
    if (revision <= this.revision) return;
    const cacheEvent = this.applyToState(event.type, event, key, object, revision, now);
    this.history.add(cacheEvent);
    this.revision = revision;
    this.options.onEvent(cacheEvent);
    this.notifyWaiters();
  }

  /** Records that every change up to `revision` has been seen (a progress notification). */
  updateResourceVersion(revision: number): void {
    if (this.replayUntil > 0) {
      if (revision < this.replayUntil) return;
      this.finishReplay();
    }
    if (revision > this.revision) {
      this.revision = revision;
      this.notifyWaiters();
    }
    this.options.onProgress?.(this.revision);
  }

  /** The history after `revision`, or 410 Expired when it is older than the window. */
  eventsSince(revision: number): WatchCacheEvent[] {
    return this.history.eventsSince(revision);
  }

  /**
   * Resolves once the cache has reached `revision`; fails after `timeoutMs` with 504
   * `Too large resource version: <revision>, current: <current>`.
   */
  waitUntilFresh(revision: number, timeoutMs: number): Promise<void> {
    if (this.revision >= revision) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: FreshnessWaiter = { revision, resolve, reject, timer: undefined };
      waiter.timer = this.options.clock.setTimeout(() => {
        this.waiters.delete(waiter);
        reject(StatusError.tooLargeResourceVersion(revision, this.revision));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Fails every pending {@link waitUntilFresh} with `error` (on stop or reinitialisation). */
  rejectWaiters(error: unknown): void {
    for (const waiter of this.waiters) {
      this.options.clock.clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    this.waiters.clear();
  }

  /**
   * Gives up a replay that does not complete: the history restarts empty at the list revision, and
   * replayed events still to come are ignored (they are not newer than the cache).
   */
  abandonReplay(): void {
    if (this.replayUntil === 0) return;
    this.history.reset(this.revision);
    this.finishReplay();
  }

  /**
   * The listed object at `key` when it is the same version as `object` (a replayed event that is still
   * the current state), else `object`: the history then holds one copy of each unchanged object, not two.
   */
  private shared(key: string, object: KubeObject): KubeObject {
    const current = this.store.get(key);
    return current && objectRevision(current) === objectRevision(object) ? current : object;
  }

  /**
   * Applies a change to the state; returns its history event (whose previous object is the state's, if
   * held). The event's `previousObject` is read only when the state does not hold the key: the storage
   * decodes (decrypts) it lazily, and the state's copy is the same version.
   */
  private applyToState(
    type: WatchCacheEventType,
    event: StorageWatchEvent,
    key: string,
    object: KubeObject,
    revision: number,
    now: number,
  ): WatchCacheEvent {
    // One lookup of the key: what the state held comes back from the change.
    const held = type === 'DELETED' ? this.store.delete(key) : this.store.set(key, object);
    return new WatchCacheEvent(type, key, object, held ?? event.previousObject, revision, now);
  }

  private finishReplay(): void {
    this.replayUntil = 0;
    this.replayFillsState = false;
    this.options.onReplayComplete();
  }

  private notifyWaiters(): void {
    for (const waiter of this.waiters) {
      if (waiter.revision > this.revision) continue;
      this.waiters.delete(waiter);
      this.options.clock.clearTimeout(waiter.timer);
      waiter.resolve();
    }
  }
}
