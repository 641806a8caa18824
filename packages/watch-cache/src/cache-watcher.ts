import type { StorageWatchEvent, Watch, WatchConsumer, WatchReceiver } from '@kapi/storage';
import { WatchChannel, deliverByPromise } from '@kapi/storage';
import type { KubeObject } from '@kapi/apimachinery';
import { inScope, type KeyScope } from './cache-store.js';
import type { WatchCacheEvent } from './watch-cache-event.js';

/** Options of a {@link CacheWatcher}. */
export interface CacheWatcherOptions {
  scope: KeyScope;
  /** Selects the objects the watcher sees; absent selects everything. */
  matches?: ((object: KubeObject) => boolean) | undefined;
  /** Events at or below this revision are not delivered (they are covered by the initial events). */
  startRevision: number;
  allowBookmarks: boolean;
  /** Forward the cache's progress (revision advances and answers to progress requests) as BOOKMARKs. */
  progressNotify?: boolean | undefined;
  /** When the watch will be ended by its caller (clock milliseconds), for the pre-timeout bookmark. */
  deadline?: number | undefined;
  /** Live events that may wait for the consumer; one more makes the watcher close itself. */
  queueCapacity: number;
  /** Objects delivered first as ADDED (the state, already limited to the scope). */
  initialState?: readonly KubeObject[] | undefined;
  /** History events delivered first (after `startRevision`), converted like live ones. */
  initialHistory?: readonly WatchCacheEvent[] | undefined;
  /** Delivered after the initial events: the watch-list `initial-events-end` bookmark. */
  initialEventsEnd?: StorageWatchEvent | undefined;
  signal?: AbortSignal | undefined;
  /** Called once when the watcher ends, for any reason. */
  onStop: (watcher: CacheWatcher) => void;
}

const noEvents: readonly StorageWatchEvent[] = Object.freeze([]);

/**
 * A watcher's channel, which tells the cacher when the watcher stops: a subclass rather than an `onStop`
 * bound to the watcher, a function and its arguments that every idle watcher would hold.
 */
class WatcherChannel extends WatchChannel {
  constructor(
    capacity: number,
    private readonly watcher: CacheWatcher,
    private readonly onWatcherStop: (watcher: CacheWatcher) => void,
  ) {
    super({ capacity });
  }

  protected override afterStop(): void {
    this.onWatcherStop(this.watcher);
  }
}

/**
 * One client watch served from the cache (cache_watcher.go). Initial events are read from a snapshot,
 * then live events from a bounded queue, or, in push mode ({@link deliver}), handed to the consumer as
 * they are dispatched while it keeps up. A consumer that falls `queueCapacity` events behind is closed
 * (its client resumes from the last revision it saw) so it never slows the others.
 */
export class CacheWatcher implements Watch {
  /** The newest revision this watcher was told about (an event or a progress bookmark). */
  private progressRevision = 0;
  private readonly channel: WatchChannel;
  /** The events before the live ones, until they have all been read (then dropped with what they hold). */
  private initialEvents: Iterator<StorageWatchEvent> | undefined;
  private terminated = false;
  private fellBehind = false;
  // What an idle watcher keeps is copied out of its options (which hold the initial state and history).
  readonly scope: KeyScope;
  private readonly startRevision: number;
  private readonly queueCapacity: number;
  private readonly matches: ((object: KubeObject) => boolean) | undefined;
  readonly allowBookmarks: boolean;
  readonly progressNotify: boolean;
  readonly deadline: number | undefined;

  constructor(options: CacheWatcherOptions) {
    this.scope = options.scope;
    this.startRevision = options.startRevision;
    this.queueCapacity = options.queueCapacity;
    this.matches = options.matches;
    this.allowBookmarks = options.allowBookmarks;
    this.progressNotify = options.progressNotify === true;
    this.deadline = options.deadline;
    this.initialEvents = this.initial(options.initialState ?? [], options.initialHistory ?? [], options.initialEventsEnd);
    const signal = options.signal;
    const onAbort = signal && ((): void => this.stop());
    // One slot beyond the queue capacity is kept for the final bookmark sent on shutdown.
    this.channel = new WatcherChannel(options.queueCapacity + 1, this, options.onStop);
    if (!signal || !onAbort) return;
    if (signal.aborted) this.stop();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      void this.channel.done.then(() => signal.removeEventListener('abort', onAbort));
    }
  }

  /** True once the watcher was closed because its consumer could not keep up. */
  get overflowed(): boolean {
    return this.fellBehind;
  }

  get done(): Promise<void> {
    return this.channel.done;
  }

  /** True once the watcher no longer accepts events. */
  get closed(): boolean {
    return this.channel.closed;
  }

  /**
   * Delivers a live change in the watcher's scope (the caller matched the key: see
   * `CacheWatchers`), converted for its selector; closes the watcher when it is too far behind.
   */
  dispatch(event: WatchCacheEvent): void {
    const channel = this.channel;
    if (event.resourceVersion <= this.startRevision || channel.closed) return;
    const converted = this.convert(event);
    if (!converted) return;
    if (!channel.receiving && channel.pending >= this.queueCapacity) {
      this.fellBehind = true;
      this.stop();
      return;
    }
    if (channel.push(converted)) this.progressRevision = event.resourceVersion;
  }

  /** True when the cache is at a revision this watcher has not been told about (neither by an event nor by progress). */
  owesProgress(revision: number): boolean {
    return revision > Math.max(this.progressRevision, this.startRevision);
  }

  /**
   * Offers a periodic BOOKMARK. It is skipped (the watcher stays open) when the queue is full or the
   * bookmark is not newer than where the watch started.
   */
  offerBookmark(bookmark: StorageWatchEvent, revision: number): boolean {
    if (!this.allowBookmarks || this.channel.closed || revision <= this.startRevision) return false;
    if (this.channel.pending >= this.queueCapacity) return false;
    return this.channel.push(bookmark);
  }

  /**
   * Offers a progress BOOKMARK (storage `progressNotify` semantics: every change up to `revision` has
   * been delivered). Skipped when the queue is full.
   */
  offerProgress(bookmark: StorageWatchEvent, revision: number): boolean {
    if (!this.progressNotify || this.channel.closed || revision < this.startRevision) return false;
    if (this.channel.pending >= this.queueCapacity) return false;
    const pushed = this.channel.push(bookmark);
    if (pushed) this.progressRevision = Math.max(this.progressRevision, revision);
    return pushed;
  }

  /** Ends the stream after the queued events, first queueing `finalBookmark` when bookmarks are allowed. */
  close(finalBookmark?: { event: StorageWatchEvent; revision: number }): void {
    if (finalBookmark && this.allowBookmarks && finalBookmark.revision >= this.startRevision) {
      this.channel.push(finalBookmark.event);
    }
    this.channel.close();
  }

  /** Ends the stream with `error` (an ERROR event) after the queued events. */
  fail(error: StorageWatchEvent): void {
    this.channel.push(error);
    this.channel.close();
  }

  /** Ends the stream now, dropping queued events. */
  stop(): void {
    this.terminated = true;
    this.initialEvents = undefined;
    this.channel.stop();
  }

  /** Takes up to `max` events ready now (initial ones first, then queued live ones), without waiting. */
  takeBuffered(max = Number.POSITIVE_INFINITY): readonly StorageWatchEvent[] {
    if (this.terminated || (!this.initialEvents && this.channel.pending === 0)) return noEvents;
    const taken: StorageWatchEvent[] = [];
    while (this.initialEvents && taken.length < max) {
      const initial = this.initialEvents.next();
      if (initial.done) this.initialEvents = undefined;
      else taken.push(initial.value);
    }
    if (!this.initialEvents && taken.length < max) {
      for (const event of this.channel.takeBuffered(max - taken.length)) taken.push(event);
    }
    return taken;
  }

  /** Push mode (see `Watch.deliver`): {@link deliverTo} with a promise for its outcome. */
  deliver(receive: WatchReceiver, max = Number.POSITIVE_INFINITY): Promise<boolean> {
    return deliverByPromise(this, receive, max);
  }

  /**
   * Push mode (see `Watch.deliverTo`): hands `consumer` up to `max` ready events (initial ones first, then
   * queued live ones); once none are left, live events are handed to it as they are dispatched.
   */
  deliverTo(consumer: WatchConsumer, max = Number.POSITIVE_INFINITY): boolean | undefined {
    let flowing = true;
    let count = 0;
    while (this.initialEvents && !this.terminated && count < max) {
      const initial = this.initialEvents.next();
      if (initial.done) this.initialEvents = undefined;
      else {
        flowing = consumer.receive(initial.value) && flowing;
        count++;
      }
    }
    if (this.terminated) return false;
    if (this.initialEvents || !flowing) return true;
    return this.channel.deliverTo(consumer, max - count);
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageWatchEvent> {
    const live = this.channel[Symbol.asyncIterator]();
    return {
      next: () => {
        if (this.terminated) return Promise.resolve({ value: undefined, done: true });
        if (this.initialEvents) {
          const initial = this.initialEvents.next();
          if (!initial.done) return Promise.resolve(initial);
          this.initialEvents = undefined;
        }
        return live.next();
      },
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /** The events before the live ones, produced lazily as the consumer reads. */
  private *initial(
    state: readonly KubeObject[],
    history: readonly WatchCacheEvent[],
    end: StorageWatchEvent | undefined,
  ): Generator<StorageWatchEvent> {
    const matches = this.matches;
    for (const object of state) {
      if (!matches || matches(object)) yield { type: 'ADDED', object };
    }
    for (const event of history) {
      if (!inScope(this.scope, event.key)) continue;
      const converted = this.convert(event);
      if (converted) yield converted;
    }
    if (end) yield end;
  }

  /** Selector transitions as the storage does: leaving the selection is DELETED, entering it ADDED. */
  private convert(event: WatchCacheEvent): StorageWatchEvent | undefined {
    const matches = this.matches;
    if (!matches) {
      if (event.type === 'ADDED') return event.asAdded();
      return event.type === 'MODIFIED' ? event.asModified() : event.asDeleted();
    }
    const before = event.objectBefore;
    const matchesNow = event.type !== 'DELETED' && matches(event.object);
    const matchedBefore = before !== undefined && matches(before);
    if (matchesNow) return matchedBefore ? event.asModified() : event.asAdded();
    return matchedBefore ? event.asDeleted() : undefined;
  }
}
