/** Options of a {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** How many keys are processed at once. Default 4. */
  concurrency?: number;
  /** First retry delay; doubled on each failure of the same key. Default 50 ms. */
  baseDelayMs?: number;
  /** Longest retry delay. Default 30 s. */
  maxDelayMs?: number;
}

/**
 * A deduplicating work queue (client-go's rate-limited workqueue, in small): a key is processed by one
 * worker at a time; a key added while it is processed runs again afterwards; {@link retry} re-adds it
 * after an exponential per-key delay, {@link forget} resets that delay.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;
  private readonly concurrency: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly process: (key: string) => Promise<void>,
    options: WorkQueueOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 4;
    this.baseDelayMs = options.baseDelayMs ?? 50;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
  }

  /** How many keys wait (queued or delayed). */
  get length(): number {
    return this.queued.size + this.timers.size;
  }

  /** Queues `key` now (once, however often it is added). */
  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Queues `key` after `delayMs` (a pending delayed add of the key is kept). */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped || this.timers.has(key)) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, timer);
  }

  /** Queues `key` again after its backoff, which doubles with each call until {@link forget}. */
  retry(key: string, minimumDelayMs = 0): void {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (failures - 1));
    this.addAfter(key, Math.max(delay, minimumDelayMs));
  }

  /** Resets the backoff of `key`. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Drops every queued key and stops processing. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
  }

  private pump(): void {
    while (!this.stopped && this.processing.size < this.concurrency && this.queue.length > 0) {
      const key = this.queue.shift() as string;
      this.queued.delete(key);
      this.processing.add(key);
      void this.process(key)
        .catch(() => undefined)
        .finally(() => {
          this.processing.delete(key);
          if (this.dirty.delete(key)) this.add(key);
          this.pump();
        });
    }
  }
}
