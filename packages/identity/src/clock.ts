/** Time source and timers; tests inject a fake one to cover expiry without sleeping. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): { cancel(): void };
}

/** The real clock. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  },
};

/** A manually advanced clock for tests: timers fire when `advance` passes their due time. */
export class FakeClock implements Clock {
  private timers: Array<{ due: number; callback: () => void; cancelled: boolean }> = [];

  constructor(private current = Date.parse('2026-01-01T00:00:00Z')) {}

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): { cancel(): void } {
    const timer = { due: this.current + ms, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.timers.filter((t) => !t.cancelled && t.due <= target).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.current = next.due;
      next.cancelled = true;
      next.callback();
    }
    this.timers = this.timers.filter((t) => !t.cancelled);
    this.current = target;
  }
}
