import { StatusError, isKubeObject, type Status } from '@kapi/apimachinery';
import {
  RevisionCompactedError,
  isCompactor,
  isProgressRequester,
  isRevisionReader,
  type Interface,
  type ListResult,
  type StorageWatchEvent,
  type Watch,
} from '@kapi/storage';
import type { Clock, TimerHandle } from './clock.js';
import { PROGRESS_REQUEST_PERIOD_MS } from './consistent-read.js';
import { objectRevision, type WatchCache } from './watch-cache.js';

/** Options of a {@link CacheReflector}. */
export interface CacheReflectorOptions {
  storage: Interface;
  /** The key listed and watched (recursively). */
  prefix: string;
  cache: WatchCache;
  clock: Clock;
  /** Ask the backend for progress notifications on the cache's watch. */
  progressNotify: boolean;
  /** Replay the backend's retained history into the cache's history on (re)initialisation. */
  loadHistory: boolean;
  /** Pause before retrying after a failure or a broken watch. */
  retryDelayMs: number;
  /** How long a history replay may take before it is abandoned (the cache then starts with an empty history). */
  replayTimeoutMs: number;
  /** Objects per page of the list (0: one call). */
  listPageSize: number;
  /** The cache holds a complete list (and, with history loading, the replayed history). */
  onReady: () => void;
  /** The cache must be rebuilt from a new list (its history no longer connects to the backend's). */
  onReinitialize: (reason: unknown) => void;
  /** A failure that will be retried. */
  onError: (error: unknown) => void;
  /** The backend watch failed with an ERROR event other than 410 (e.g. an undecodable object); it will be resumed. */
  onWatchError: (status: Status) => void;
}

/**
 * How a backend watch ended; `relist`: a replay building the state timed out, list instead; `reopen`: a
 * replay of history beside a listed state has completed, and the watch is opened again without previous
 * values (the replay needed them, the cache's own state serves from then on).
 */
type WatchOutcome = 'expired' | 'ended' | 'relist' | 'reopen';

/** True when an error or Status says the requested revision was compacted (410). */
export function isExpired(value: unknown): boolean {
  if (value instanceof RevisionCompactedError) return true;
  if (StatusError.isInstance(value)) return value.code === 410;
  return typeof value === 'object' && value !== null && (value as { code?: unknown }).code === 410;
}

/**
 * Keeps a {@link WatchCache} in sync with the backend (the cacher's reflector): list, then one watch
 * from the list revision. A broken watch is resumed from the last revision seen (events or progress
 * notifications); only a 410 forces a new list. With history loading, the watch starts at the backend's
 * compaction revision instead, so the events the backend still retains refill the history first.
 */
export class CacheReflector {
  private stopped = false;
  private watch: Watch | undefined;
  private sleepTimer: TimerHandle | undefined;
  private replayTimer: TimerHandle | undefined;
  private wakeUp: (() => void) | undefined;
  /** The revision the next watch resumes after. */
  private lastRevision = 0;
  /** The next initialisation lists without replaying history (a replay building the state timed out). */
  private listOnly = false;
  private running: Promise<void> | undefined;

  constructor(private readonly options: CacheReflectorOptions) {}

  /** Starts the list/watch loop (once). */
  start(): void {
    this.running ??= this.run();
  }

  /** Stops the loop and the backend watch; resolves once the loop has exited. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.stop();
    if (this.sleepTimer !== undefined) this.options.clock.clearTimeout(this.sleepTimer);
    if (this.replayTimer !== undefined) this.options.clock.clearTimeout(this.replayTimer);
    this.wakeUp?.();
    await this.running;
  }

  private async run(): Promise<void> {
    let needsList = true;
    while (!this.stopped) {
      try {
        if (needsList) {
          await this.initialize();
          needsList = false;
          if (this.stopped) break;
        }
        const outcome = await this.watchOnce();
        if (this.stopped) break;
        if (outcome === 'reopen') continue;
        if (outcome === 'relist') {
          needsList = true;
          continue;
        }
        if (outcome === 'expired') {
          needsList = true;
          this.options.onReinitialize(StatusError.expired('The resourceVersion for the provided watch is too old.'));
          continue;
        }
      } catch (error) {
        if (this.stopped) break;
        if (isExpired(error)) {
          needsList = true;
          this.options.onReinitialize(error);
          continue;
        }
        this.options.onError(error);
      }
      await this.sleep(this.options.retryDelayMs);
    }
  }

  /**
   * Lists the prefix and resets the cache to it; decides where the watch starts. A backend that has never
   * compacted (and can report its revision) is not listed when history is loaded: the replay of its whole
   * log builds the state and the history in one read.
   */
  private async initialize(): Promise<void> {
    const { storage, cache } = this.options;
    // A replay is known to be complete from a progress notification, so history loading needs them.
    const loadHistory = this.options.loadHistory && this.options.progressNotify && !this.listOnly;
    this.listOnly = false;
    if (loadHistory && isCompactor(storage) && isRevisionReader(storage) && (await storage.compactRevision()) <= 1) {
      const revision = await storage.getCurrentResourceVersion();
      if (this.stopped) return;
      cache.replayAll(revision);
      this.lastRevision = 1;
      if (!cache.replaying) this.options.onReady();
      return;
    }
    const list = await this.list();
    const listRevision = Number(list.resourceVersion) || 0;
    let historyBase = listRevision;
    if (loadHistory) {
      const compacted = isCompactor(storage) ? await storage.compactRevision() : 0;
      // The backend keeps the events from its compacted revision on: a watch from the one before it works.
      historyBase = Math.min(Math.max(compacted - 1, 1), listRevision);
    }
    if (this.stopped) return;
    cache.replace(list.items, listRevision, historyBase);
    this.lastRevision = historyBase;
    if (!cache.replaying) this.options.onReady();
  }

  /**
   * The whole prefix at one revision, read in pages of `listPageSize` (upstream's reflector pager); when a
   * page's revision was compacted meanwhile, read again in one call, as that pager falls back.
   */
  private async list(): Promise<ListResult> {
    const { storage, prefix, listPageSize } = this.options;
    const whole = () => storage.getList(prefix, { recursive: true, resourceVersion: '' });
    if (listPageSize <= 0) return whole();
    const first = await storage.getList(prefix, { recursive: true, resourceVersion: '', predicate: { limit: listPageSize } });
    const items = [...first.items];
    let token = first.continue;
    try {
      while (token && !this.stopped) {
        // A backend that answers at once (SQLite reads synchronously) would otherwise hold the event loop
        // for the whole fill: no timer, request or other cache's fill would run until it ends.
        await turnOfEventLoop();
        if (this.stopped) break;
        const page = await storage.getList(prefix, { recursive: true, predicate: { limit: listPageSize, continue: token } });
        for (const item of page.items) items.push(item);
        token = page.continue;
      }
    } catch (error) {
      if (!isExpired(error)) throw error;
      return whole();
    }
    return { items, resourceVersion: first.resourceVersion };
  }

  /** Runs one backend watch until it ends; says whether it ended because its revision was compacted. */
  private async watchOnce(): Promise<WatchOutcome> {
    const { storage, cache } = this.options;
    // The cache keeps the state, so the storage need not read each change's previous value; except while
    // history older than a listed state is replayed into the history (its deletions need their objects).
    const omitPrevious = !cache.replaying || cache.replayingState;
    const watch = await storage.watch(this.options.prefix, {
      recursive: true,
      resourceVersion: String(this.lastRevision),
      progressNotify: this.options.progressNotify,
      omitPrevious,
    });
    this.watch = watch;
    if (this.stopped) {
      watch.stop();
      return 'ended';
    }
    if (cache.replaying) this.superviseReplay();
    try {
      for await (const event of watch) {
        if (this.stopped) return 'ended';
        if (event.type === 'ERROR') {
          if (isExpired(event.object)) return 'expired';
          this.options.onError(describeError(event));
          this.options.onWatchError(event.object as Status);
          return 'ended';
        }
        this.apply(event);
        if (!omitPrevious && !cache.replaying) return 'reopen';
      }
      return this.listOnly ? 'relist' : 'ended';
    } finally {
      watch.stop();
      this.watch = undefined;
    }
  }

  /**
   * A replay is complete once a progress notification covers the list revision: ask for one every
   * 100 ms, and abandon the replay after `replayTimeoutMs`.
   */
  private superviseReplay(): void {
    const { clock, cache, storage } = this.options;
    if (this.replayTimer !== undefined) clock.clearTimeout(this.replayTimer);
    const deadline = clock.now() + this.options.replayTimeoutMs;
    const check = (): void => {
      this.replayTimer = undefined;
      if (this.stopped || !cache.replaying) return;
      if (clock.now() >= deadline) {
        if (!cache.replayingState) {
          cache.abandonReplay();
          return;
        }
        // Without the replay the cache has no state: list it instead, without history.
        this.listOnly = true;
        this.watch?.stop();
        return;
      }
      if (isProgressRequester(storage)) storage.requestWatchProgress(this.options.prefix).catch(this.options.onError);
      this.replayTimer = clock.setTimeout(check, PROGRESS_REQUEST_PERIOD_MS);
    };
    check();
  }

  private apply(event: StorageWatchEvent): void {
    const revision = isKubeObject(event.object) ? objectRevision(event.object) : 0;
    if (event.type === 'BOOKMARK') this.options.cache.updateResourceVersion(revision);
    else this.options.cache.processEvent(event);
    this.lastRevision = Math.max(this.lastRevision, revision);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.wakeUp = resolve;
      this.sleepTimer = this.options.clock.setTimeout(() => {
        this.sleepTimer = undefined;
        this.wakeUp = undefined;
        resolve();
      }, ms);
    });
  }
}

/** Resolves after the event loop has run its pending timers and I/O once. */
function turnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function describeError(event: StorageWatchEvent): Error {
  const message = (event.object as { message?: unknown }).message;
  return new Error(typeof message === 'string' ? message : 'backend watch failed');
}
