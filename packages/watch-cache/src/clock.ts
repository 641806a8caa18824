/** An opaque handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/** The time source of the cacher, injectable so tests can drive time (bookmarks, history window, timeouts). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` once after `delayMs`. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The wall clock, backed by `Date.now` and the global timers (which do not keep the process alive). */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, delayMs) {
    const timer = setTimeout(callback, delayMs);
    timer.unref?.();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

interface FakeTimer {
  id: number;
  at: number;
  callback: () => void;
}

/** A manually advanced clock for tests: timers fire only inside {@link FakeClock.advance}. */
export class FakeClock implements Clock {
  private current: number;
  private timers: FakeTimer[] = [];
  private nextId = 1;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const timer: FakeTimer = { id: this.nextId++, at: this.current + Math.max(0, delayMs), callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  /** Number of timers waiting to fire. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order. Between timers it yields to pending
   * promise callbacks, so async work started by one timer settles before the next fires.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      const due = this.timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = Math.max(this.current, due.at);
      due.callback();
    }
    this.current = target;
    await flushMicrotasks();
  }
}

/** Lets already-queued promise callbacks (and the ones they queue) run. */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let round = 0; round < rounds; round++) await Promise.resolve();
}
