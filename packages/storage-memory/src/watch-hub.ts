import type { KVEvent, KVWatchListener } from '@kapi/storage';

/** One registered watch of the memory backend. */
export interface HubWatcher {
  readonly key: string;
  readonly prefix: boolean;
  /** Next revision to deliver. */
  next: number;
  readonly progressNotify: boolean;
  progressPending: boolean;
  readonly listener: KVWatchListener;
}

/** The event log the hub reads: event of revision `r` is `log[r - logStart]`. */
export interface EventLog {
  readonly log: readonly KVEvent[];
  readonly logStart: number;
  readonly revision: number;
}

/**
 * Fans the backend's event log out to watchers. Delivery is asynchronous (one microtask per burst of
 * writes): each flush sends every watcher the matching events from its next revision up to the current
 * one, in revision order, then any pending progress notification at the current revision. Replay of
 * history and live delivery are the same code path, so ordering holds by construction.
 */
export class WatchHub {
  private readonly watchers = new Set<HubWatcher>();
  private scheduled = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private progressWatchers = 0;

  constructor(
    private readonly source: EventLog,
    private readonly progressNotifyIntervalMs: number,
  ) {}

  /** Number of registered watchers. */
  get size(): number {
    return this.watchers.size;
  }

  add(watcher: HubWatcher): void {
    this.watchers.add(watcher);
    if (watcher.progressNotify && ++this.progressWatchers === 1) this.startTimer();
    this.schedule();
  }

  remove(watcher: HubWatcher): void {
    if (!this.watchers.delete(watcher)) return;
    if (watcher.progressNotify && --this.progressWatchers === 0) this.stopTimer();
  }

  /** Marks every watcher for a progress notification (RequestProgress). */
  requestProgress(): void {
    for (const watcher of this.watchers) watcher.progressPending = true;
    this.schedule();
  }

  /** Queues a flush for new events. */
  schedule(): void {
    if (this.scheduled || this.watchers.size === 0) return;
    this.scheduled = true;
    queueMicrotask(this.flushTask);
  }

  private readonly flushTask = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** Delivers everything pending now (also called before compaction trims the log). */
  flush(): void {
    for (const watcher of this.watchers) this.deliver(watcher);
  }

  /** Ends every watch with `error`. */
  closeAll(error: Error): void {
    const watchers = [...this.watchers];
    this.watchers.clear();
    this.progressWatchers = 0;
    this.stopTimer();
    for (const watcher of watchers) safely(() => watcher.listener.onError(error));
  }

  private deliver(watcher: HubWatcher): void {
    const { log, logStart, revision } = this.source;
    let batch: KVEvent[] | undefined;
    const key = watcher.key;
    for (let current = watcher.next; current <= revision; current++) {
      const event = log[current - logStart];
      if (!event) continue;
      const eventKey = event.entry.key;
      if (watcher.prefix ? eventKey.startsWith(key) : eventKey === key) (batch ??= []).push(event);
    }
    if (watcher.next <= revision) watcher.next = revision + 1;
    try {
      if (batch) watcher.listener.onEvents(batch);
      if (watcher.progressPending && watcher.next === revision + 1) {
        watcher.progressPending = false;
        if (this.watchers.has(watcher)) watcher.listener.onProgress?.(revision);
      }
    } catch (error) {
      this.remove(watcher);
      safely(() => watcher.listener.onError(error instanceof Error ? error : new Error(String(error))));
    }
  }

  private startTimer(): void {
    if (this.timer || this.progressNotifyIntervalMs <= 0) return;
    this.timer = setInterval(() => {
      for (const watcher of this.watchers) if (watcher.progressNotify) watcher.progressPending = true;
      this.schedule();
    }, this.progressNotifyIntervalMs);
    this.timer.unref?.();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function safely(action: () => void): void {
  try {
    action();
  } catch {
    // A listener failing while being told about an error has nobody left to tell.
  }
}
