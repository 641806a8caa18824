/** Something that ends when its time is up. */
export interface Expiring {
  expire(): void;
}

/**
 * The watch timeouts of a process on one timer: entries grouped in one-second buckets by deadline,
 * one `setTimeout` for the earliest bucket. A watch then costs a set entry, not a `Timeout` object,
 * its closure and (its duration being random) a timer list of its own. An entry expires in the
 * second after its deadline, never before it.
 */
export class WatchTimeouts {
  private readonly buckets = new Map<number, Set<Expiring>>();
  private timer: NodeJS.Timeout | undefined;
  /** The bucket the timer is set for. */
  private timerBucket = Number.POSITIVE_INFINITY;

  /** Expires `entry` at `deadline` (epoch ms, as Date.now); returns the bucket to {@link remove} it from. */
  add(entry: Expiring, deadline: number): number {
    const bucket = Math.ceil(deadline / 1000);
    let entries = this.buckets.get(bucket);
    if (!entries) {
      entries = new Set();
      this.buckets.set(bucket, entries);
    }
    entries.add(entry);
    if (bucket < this.timerBucket) this.schedule(bucket);
    return bucket;
  }

  /** Forgets `entry` (added with the returned `bucket`). */
  remove(entry: Expiring, bucket: number): void {
    const entries = this.buckets.get(bucket);
    if (!entries?.delete(entry) || entries.size > 0) return;
    this.buckets.delete(bucket);
    if (this.buckets.size === 0) this.schedule(Number.POSITIVE_INFINITY);
  }

  private schedule(bucket: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerBucket = bucket;
    if (bucket === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(() => this.fire(), Math.max(0, bucket * 1000 - Date.now()));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerBucket = Number.POSITIVE_INFINITY;
    const now = Date.now();
    for (const [bucket, entries] of this.buckets) {
      if (bucket * 1000 > now) continue;
      this.buckets.delete(bucket);
      for (const entry of entries) entry.expire();
    }
    let next = Number.POSITIVE_INFINITY;
    for (const bucket of this.buckets.keys()) next = Math.min(next, bucket);
    // An entry added by an expire() may have scheduled the timer for its bucket already.
    if (next < this.timerBucket) this.schedule(next);
  }
}
