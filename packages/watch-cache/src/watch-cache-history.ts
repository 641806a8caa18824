import { StatusError } from '@kapi/apimachinery';
import type { WatchCacheEvent } from './watch-cache-event.js';

/** Upstream's DefaultEventFreshDuration: 1m15s. */
export const DEFAULT_EVENT_FRESH_DURATION_MS = 75_000;
/** Smallest history capacity (and the initial one). */
export const DEFAULT_MIN_HISTORY = 100;
/** Largest history capacity for the default window. */
export const DEFAULT_MAX_HISTORY = 102_400;

/** Options of a {@link WatchCacheHistory}. */
export interface WatchCacheHistoryOptions {
  /** Events younger than this are kept (the buffer grows instead of evicting them). */
  freshDurationMs: number;
  minCapacity: number;
  maxCapacity: number;
}

/**
 * The watch cache's bounded event log (watch_cache.go's cyclic buffer): a ring buffer whose capacity
 * adapts between min and max so that it holds roughly `freshDuration` worth of events. It doubles when
 * full while its oldest event is still fresh, and halves when full while the event a quarter of the
 * capacity back from the newest is already stale.
 */
export class WatchCacheHistory {
  private buffer: Array<WatchCacheEvent | undefined>;
  /** Index (monotonic, not wrapped) of the oldest event. */
  private startIndex = 0;
  /** Index one past the newest event. */
  private endIndex = 0;
  /** The revision the log starts after: every event newer than it is held unless one was evicted. */
  private baseRevision = 0;
  private evictedSinceReset = false;

  constructor(private readonly options: WatchCacheHistoryOptions) {
    this.buffer = new Array<WatchCacheEvent | undefined>(options.minCapacity);
  }

  /** Current capacity. */
  get capacity(): number {
    return this.buffer.length;
  }

  /** Number of events held. */
  get size(): number {
    return this.endIndex - this.startIndex;
  }

  /** The oldest event held, if any. */
  get oldest(): WatchCacheEvent | undefined {
    return this.at(0);
  }

  /** Empties the log; it then covers every event after `baseRevision` (the list revision after a relist). */
  reset(baseRevision: number): void {
    this.buffer = new Array<WatchCacheEvent | undefined>(this.options.minCapacity);
    this.startIndex = 0;
    this.endIndex = 0;
    this.baseRevision = baseRevision;
    this.evictedSinceReset = false;
  }

  /** Appends an event (events arrive in increasing resourceVersion order), resizing or evicting as needed. */
  add(event: WatchCacheEvent): void {
    this.resize(event.recordTime);
    if (this.size === this.capacity) {
      this.buffer[this.startIndex % this.capacity] = undefined;
      this.startIndex++;
      this.evictedSinceReset = true;
    }
    this.buffer[this.endIndex % this.capacity] = event;
    this.endIndex++;
  }

  /**
   * The oldest revision a watch may start from: a watch from `rv` needs every event after `rv`, so this
   * is one less than the oldest revision the log is sure to hold.
   */
  oldestWatchableRevision(): number {
    if (!this.evictedSinceReset) return this.baseRevision;
    const oldest = this.at(0);
    return oldest ? oldest.resourceVersion - 1 : this.baseRevision;
  }

  /**
   * The held events newer than `resourceVersion`, oldest first. Fails with 410 Expired
   * `too old resource version: <rv> (<oldest-1>)` when events after it may have been evicted.
   */
  eventsSince(resourceVersion: number): WatchCacheEvent[] {
    const oldestWatchable = this.oldestWatchableRevision();
    if (resourceVersion < oldestWatchable) {
      throw StatusError.expired(`too old resource version: ${resourceVersion} (${oldestWatchable})`);
    }
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.at(middle) as WatchCacheEvent).resourceVersion > resourceVersion) high = middle;
      else low = middle + 1;
    }
    const events: WatchCacheEvent[] = [];
    for (let index = low; index < this.size; index++) events.push(this.at(index) as WatchCacheEvent);
    return events;
  }

  /** The event at position `offset` from the oldest. */
  private at(offset: number): WatchCacheEvent | undefined {
    if (offset < 0 || offset >= this.size) return undefined;
    return this.buffer[(this.startIndex + offset) % this.capacity];
  }

  private resize(eventTime: number): void {
    if (this.size !== this.capacity) return;
    const fresh = this.options.freshDurationMs;
    const oldest = this.at(0) as WatchCacheEvent;
    if (eventTime - oldest.recordTime < fresh) {
      const grown = Math.min(this.capacity * 2, this.options.maxCapacity);
      if (grown > this.capacity) this.setCapacity(grown);
      return;
    }
    const quarterBack = this.at(this.size - Math.floor(this.capacity / 4)) as WatchCacheEvent;
    if (eventTime - quarterBack.recordTime > fresh) {
      const shrunk = Math.max(Math.floor(this.capacity / 2), this.options.minCapacity);
      if (shrunk < this.capacity) this.setCapacity(shrunk);
    }
  }

  private setCapacity(capacity: number): void {
    const buffer = new Array<WatchCacheEvent | undefined>(capacity);
    if (this.size > capacity) {
      this.startIndex = this.endIndex - capacity;
      this.evictedSinceReset = true;
    }
    for (let index = this.startIndex; index < this.endIndex; index++) {
      buffer[index % capacity] = this.buffer[index % this.capacity];
    }
    this.buffer = buffer;
  }
}
