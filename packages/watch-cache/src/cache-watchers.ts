import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject, type Status } from '@kapi/apimachinery';
import type { StorageWatchEvent } from '@kapi/storage';
import { BookmarkSchedule, JitteredTicker, nextBookmarkTime } from './bookmark-timer.js';
import { scopeMatcher, scopeName } from './cache-store.js';
import { CacheWatcher, type CacheWatcherOptions } from './cache-watcher.js';
import type { Clock } from './clock.js';
import type { WatchCacheEvent } from './watch-cache-event.js';

/** A BOOKMARK carrying only a resourceVersion (and, for watch-list, the initial-events-end annotation). */
export function bookmarkEvent(revision: number, initialEventsEnd = false): StorageWatchEvent {
  const metadata: KubeObject['metadata'] = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
  return { type: 'BOOKMARK', object: { metadata } };
}

/** Stopped watchers the bookmark schedule may hold before a prune, whatever the number of live ones. */
const pruneAfterStopped = 1000;

/** Options of {@link CacheWatchers}. */
export interface CacheWatchersOptions {
  clock: Clock;
  /** The revision bookmarks carry, or `undefined` while none should be sent (cache not ready). */
  bookmarkRevision: () => number | undefined;
  /** Random source of the bookmark timer's jitter. */
  random: () => number;
}

/** Watchers of the same scope: a change's key is matched once for all of them. */
interface ScopeGroup {
  covers: (key: string) => boolean;
  watchers: Set<CacheWatcher>;
}

/**
 * The cacher's watchers: fan-out of changes and progress, and the bookmark timer (a jittered 1 s tick
 * that sends bookmarks to the watchers whose time has come).
 */
export class CacheWatchers {
  private readonly watchers = new Set<CacheWatcher>();
  private readonly scopes = new Map<string, ScopeGroup>();
  private readonly bookmarks = new BookmarkSchedule<CacheWatcher>();
  private readonly ticker: JitteredTicker;
  private lastBookmark: number | undefined;
  /** Bookmark watchers stopped since the last prune (some may have left the schedule at their time since). */
  private stoppedScheduled = 0;
  /** Every watcher's `onStop`: one function for all of them. */
  private readonly removeWatcher = (watcher: CacheWatcher): void => this.remove(watcher);

  constructor(private readonly options: CacheWatchersOptions) {
    this.ticker = new JitteredTicker(options.clock, () => this.dispatchBookmarks(), undefined, undefined, options.random);
  }

  get size(): number {
    return this.watchers.size;
  }

  /** How many watchers the bookmark schedule holds, stopped ones included. */
  get scheduledBookmarks(): number {
    return this.bookmarks.size;
  }

  /** When a bookmark or progress notification was last offered to a watcher (clock ms); undefined before the first. */
  get lastBookmarkTime(): number | undefined {
    return this.lastBookmark;
  }

  /** Starts the bookmark timer. */
  start(): void {
    this.ticker.start();
  }

  /** Creates a watcher and subscribes it (in the same turn as its initial events were taken). */
  add(options: Omit<CacheWatcherOptions, 'onStop'>): CacheWatcher {
    const watcher = new CacheWatcher({ ...options, onStop: this.removeWatcher });
    if (watcher.closed) return watcher;
    this.watchers.add(watcher);
    const name = scopeName(options.scope);
    let group = this.scopes.get(name);
    if (!group) {
      group = { covers: scopeMatcher(options.scope), watchers: new Set() };
      this.scopes.set(name, group);
    }
    group.watchers.add(watcher);
    if (watcher.allowBookmarks) this.scheduleBookmark(watcher, this.options.clock.now());
    return watcher;
  }

  /** Delivers a change to every watcher whose scope covers its key. */
  dispatch(event: WatchCacheEvent): void {
    for (const group of this.scopes.values()) {
      if (!group.covers(event.key)) continue;
      for (const watcher of group.watchers) watcher.dispatch(event);
    }
  }

  /**
   * Forwards a backend progress notification to the watchers that asked for progress, except bookmark
   * watchers (HTTP watches with allowWatchBookmarks): as upstream's cacher does not dispatch the storage's
   * bookmarks, they hear of progress at most once a tick ({@link dispatchOwedProgress}). Every consistent
   * read that waits for the cache requests progress, which would otherwise send each of them a BOOKMARK.
   */
  dispatchProgress(revision: number): void {
    let event: StorageWatchEvent | undefined;
    for (const watcher of this.watchers) {
      if (!watcher.progressNotify || watcher.allowBookmarks) continue;
      event ??= bookmarkEvent(revision);
      watcher.offerProgress(event, revision);
    }
    if (event) this.lastBookmark = this.options.clock.now();
  }

  /** Ends every watch after its queued events, with a final bookmark at `revision` for those that allow bookmarks. */
  closeAll(finalRevision?: number): void {
    const finalBookmark = finalRevision === undefined ? undefined : { event: bookmarkEvent(finalRevision), revision: finalRevision };
    for (const watcher of [...this.watchers]) watcher.close(finalBookmark);
    this.clear();
  }

  /** Ends every watch with an ERROR event carrying `status`. */
  failAll(status: Status): void {
    const event: StorageWatchEvent = { type: 'ERROR', object: status };
    for (const watcher of [...this.watchers]) watcher.fail(event);
    this.clear();
  }

  /** Stops the bookmark timer and ends every watch (see {@link closeAll}). */
  stop(finalRevision?: number): void {
    this.ticker.stop();
    this.closeAll(finalRevision);
  }

  /** The bookmark timer's tick: bookmarks for the watchers whose time has come, at the cache revision. */
  private dispatchBookmarks(): void {
    const now = this.options.clock.now();
    this.dispatchOwedProgress();
    const due = this.bookmarks.popExpired(now);
    if (due.length === 0) return;
    const revision = this.options.bookmarkRevision();
    const event = revision === undefined ? undefined : bookmarkEvent(revision);
    for (const watcher of due) {
      if (watcher.closed) continue;
      if (event && revision !== undefined) {
        watcher.offerBookmark(event, revision);
        this.lastBookmark = now;
      }
      this.scheduleBookmark(watcher, now);
    }
  }

  /**
   * Progress for watchers that asked for it (storage `progressNotify`) and are behind the cache because the
   * changes since went to other keys: like etcd, a quiet watch learns every tick that it is current.
   */
  private dispatchOwedProgress(): void {
    const revision = this.options.bookmarkRevision();
    if (revision === undefined) return;
    let event: StorageWatchEvent | undefined;
    for (const watcher of this.watchers) {
      if (!watcher.progressNotify || !watcher.owesProgress(revision)) continue;
      event ??= bookmarkEvent(revision);
      watcher.offerProgress(event, revision);
    }
    if (event) this.lastBookmark = this.options.clock.now();
  }

  private scheduleBookmark(watcher: CacheWatcher, now: number): void {
    const next = nextBookmarkTime(now, watcher.deadline);
    if (next !== undefined) this.bookmarks.add(watcher, next);
  }

  private remove(watcher: CacheWatcher): void {
    if (!this.watchers.delete(watcher)) return;
    // A stopped watcher waits in the bookmark schedule for its time (up to a minute, as upstream's). Once
    // more have stopped since the last prune than there are live watchers (and at least pruneAfterStopped),
    // the schedule drops them: after a mass disconnect at most that many stay held, and each prune costs
    // no more than the stops that led to it.
    if (watcher.allowBookmarks && ++this.stoppedScheduled > Math.max(pruneAfterStopped, this.watchers.size)) {
      this.bookmarks.prune((scheduled) => this.watchers.has(scheduled));
      this.stoppedScheduled = 0;
    }
    const scope = scopeName(watcher.scope);
    const group = this.scopes.get(scope);
    if (!group) return;
    group.watchers.delete(watcher);
    if (group.watchers.size === 0) this.scopes.delete(scope);
  }

  private clear(): void {
    this.stoppedScheduled = 0;
    this.watchers.clear();
    this.scopes.clear();
    this.bookmarks.clear();
  }
}
