import type { ProgressRequester, RevisionReader } from '@kapi/storage';
import type { Clock, TimerHandle } from './clock.js';
import type { WatchCache } from './watch-cache.js';

/** How often progress is requested from the backend while a read waits for the cache. */
export const PROGRESS_REQUEST_PERIOD_MS = 100;

/**
 * Requests watch progress from the backend every 100 ms, but only while some read is waiting for the
 * cache to catch up (progress/watch_progress.go conditionalProgressRequester).
 */
export class ConditionalProgressRequester {
  private waiting = 0;
  private handle: TimerHandle | undefined;

  constructor(
    private readonly storage: ProgressRequester,
    private readonly clock: Clock,
    private readonly periodMs = PROGRESS_REQUEST_PERIOD_MS,
    private readonly onError: (error: unknown) => void = () => undefined,
    /** The keys the waiting reads are of: the progress request is for the watches under it. */
    private readonly key?: string,
  ) {}

  /** Runs `wait` while requesting progress. */
  async whileWaiting<T>(wait: () => Promise<T>): Promise<T> {
    this.waiting++;
    if (this.waiting === 1) this.request();
    try {
      return await wait();
    } finally {
      this.waiting--;
      if (this.waiting === 0 && this.handle !== undefined) {
        this.clock.clearTimeout(this.handle);
        this.handle = undefined;
      }
    }
  }

  private request(): void {
    this.storage.requestWatchProgress(this.key).catch(this.onError);
    this.handle = this.clock.setTimeout(() => {
      this.handle = undefined;
      if (this.waiting > 0) this.request();
    }, this.periodMs);
  }
}

/** A storage able to back consistent reads from the cache (KEP-2340). */
export type ConsistentReadStorage = ProgressRequester & RevisionReader;

/**
 * Waits until the cache has caught up with the backend's current revision (`current`, or read from the
 * storage when not given), requesting progress while waiting, and returns that revision. Fails (504 too
 * large) after `timeoutMs`.
 */
export async function waitForConsistentRevision(
  storage: ConsistentReadStorage,
  cache: WatchCache,
  requester: ConditionalProgressRequester,
  timeoutMs: number,
  current?: number,
): Promise<number> {
  const revision = current ?? (await storage.getCurrentResourceVersion());
  if (cache.resourceVersion < revision) {
    await requester.whileWaiting(() => cache.waitUntilFresh(revision, timeoutMs));
  }
  return revision;
}
