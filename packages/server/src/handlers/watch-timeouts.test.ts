import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WatchTimeouts, type Expiring } from './watch-timeouts.js';

describe('WatchTimeouts', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const entry = (log: string[], name: string): Expiring => ({ expire: () => log.push(`${name}@${Date.now()}`) });

  it('expires each entry within the second after its deadline, never before it, on one timer', () => {
    const timeouts = new WatchTimeouts();
    const log: string[] = [];
    timeouts.add(entry(log, 'late'), 1_005_500);
    timeouts.add(entry(log, 'early'), 1_002_000);
    timeouts.add(entry(log, 'same-second'), 1_001_200);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1_199);
    expect(log).toEqual([]);
    vi.advanceTimersByTime(10_000);
    expect(log).toEqual(['early@1002000', 'same-second@1002000', 'late@1006000']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not expire a removed entry, and drops its timer when nothing is left', () => {
    const timeouts = new WatchTimeouts();
    const log: string[] = [];
    const removed = entry(log, 'removed');
    const bucket = timeouts.add(removed, 1_003_000);
    const kept = timeouts.add(entry(log, 'kept'), 1_003_000);
    expect(kept).toBe(bucket);
    timeouts.remove(removed, bucket);
    vi.advanceTimersByTime(5_000);
    expect(log).toEqual(['kept@1003000']);
    const alone = entry(log, 'alone');
    timeouts.remove(alone, timeouts.add(alone, 1_010_000));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps serving entries added while others expire', () => {
    const timeouts = new WatchTimeouts();
    const log: string[] = [];
    timeouts.add({ expire: () => timeouts.add(entry(log, 'renewed'), Date.now() + 2_000) }, 1_001_000);
    vi.advanceTimersByTime(1_000);
    expect(log).toEqual([]);
    vi.advanceTimersByTime(2_000);
    expect(log).toEqual(['renewed@1003000']);
  });
});
