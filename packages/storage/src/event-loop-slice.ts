import { performance } from 'node:perf_hooks';

/** How long a loop of synchronous work (decoding a page of objects) may hold the event loop before it yields. */
export const defaultSliceMs = 2;

/**
 * Time-slices a long loop of synchronous steps: `due()` says when the current slice is used up (checked
 * every few steps, so the clock is not read per step) and `yield()` lets the event loop run I/O and timers
 * before the loop goes on. A LIST of 500 encrypted objects decodes for tens of milliseconds; sliced, other
 * requests' answers wait at most about one slice behind it instead of the whole page.
 */
export class EventLoopSlice {
  private started = performance.now();
  private steps = 0;

  constructor(
    private readonly sliceMs = defaultSliceMs,
    private readonly stepsPerCheck = 8,
  ) {}

  /** True when the slice is used up (call once per step). */
  due(): boolean {
    if (++this.steps % this.stepsPerCheck !== 0) return false;
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Lets pending I/O callbacks and timers run (setImmediate), then starts a new slice. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
