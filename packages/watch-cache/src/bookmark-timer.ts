import type { Clock, TimerHandle } from './clock.js';

/** How often a bookmark-enabled watcher gets a bookmark at the least. */
export const BOOKMARK_FREQUENCY_MS = 60_000;
/** A watcher with a deadline gets a bookmark this long before it. */
export const BOOKMARK_BEFORE_DEADLINE_MS = 2_000;
/** Period of the bookmark timer (jittered by up to 25% more). */
export const BOOKMARK_TICK_MS = 1_000;

/**
 * When a watcher should get its next bookmark (cache_watcher.go nextBookmarkTime): a minute from now,
 * or 2 s before its deadline if that is sooner; none when that time has come already (so the
 * pre-deadline bookmark is sent once).
 */
export function nextBookmarkTime(now: number, deadline: number | undefined, frequencyMs = BOOKMARK_FREQUENCY_MS): number | undefined {
  let next = now + frequencyMs;
  if (deadline !== undefined) next = Math.min(next, deadline - BOOKMARK_BEFORE_DEADLINE_MS);
  return next <= now ? undefined : next;
}

/**
 * Watchers grouped into one-second buckets by when their next bookmark is due
 * (cacher.go watcherBookmarkTimeBuckets).
 */
export class BookmarkSchedule<T> {
  private readonly buckets = new Map<number, T[]>();

  /** Schedules `item` for `time` (rounded up to its second). */
  add(item: T, time: number): void {
    const bucket = Math.ceil(time / 1000);
    const items = this.buckets.get(bucket);
    if (items) items.push(item);
    else this.buckets.set(bucket, [item]);
  }

  /** Removes and returns the items whose time has come. */
  popExpired(now: number): T[] {
    const expired: T[] = [];
    for (const [bucket, items] of this.buckets) {
      if (bucket * 1000 > now) continue;
      this.buckets.delete(bucket);
      expired.push(...items);
    }
    return expired;
  }

  /** Drops the items `keep` refuses, in every bucket (emptied buckets go too). */
  prune(keep: (item: T) => boolean): void {
    for (const [bucket, items] of this.buckets) {
      const kept = items.filter(keep);
      if (kept.length === 0) this.buckets.delete(bucket);
      else if (kept.length < items.length) this.buckets.set(bucket, kept);
    }
  }

  /** How many items are scheduled. */
  get size(): number {
    let size = 0;
    for (const items of this.buckets.values()) size += items.length;
    return size;
  }

  clear(): void {
    this.buckets.clear();
  }
}

/** A repeating timer on the injected clock with a period of `periodMs` plus up to `jitter` of it. */
export class JitteredTicker {
  private handle: TimerHandle | undefined;
  private running = false;

  constructor(
    private readonly clock: Clock,
    private readonly onTick: () => void,
    private readonly periodMs = BOOKMARK_TICK_MS,
    private readonly jitter = 0.25,
    private readonly random: () => number = Math.random,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private schedule(): void {
    const delay = this.periodMs * (1 + this.jitter * this.random());
    this.handle = this.clock.setTimeout(() => {
      if (!this.running) return;
      this.onTick();
      this.schedule();
    }, delay);
  }
}
