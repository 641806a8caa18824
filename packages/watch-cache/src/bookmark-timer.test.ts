import { describe, expect, it } from 'vitest';
import { BookmarkSchedule, JitteredTicker, nextBookmarkTime } from './bookmark-timer.js';
import { FakeClock } from './clock.js';

describe('nextBookmarkTime', () => {
  it('is a minute away, or 2 s before the deadline when sooner, and none once that has passed', () => {
    expect(nextBookmarkTime(1000, undefined)).toBe(61_000);
    expect(nextBookmarkTime(1000, 200_000)).toBe(61_000);
    expect(nextBookmarkTime(1000, 31_000)).toBe(29_000);
    expect(nextBookmarkTime(1000, 3_001)).toBe(1_001);
    expect(nextBookmarkTime(1000, 3_000)).toBeUndefined();
    expect(nextBookmarkTime(1000, 2_500)).toBeUndefined();
  });
});

describe('BookmarkSchedule', () => {
  it('pops watchers once their (second-rounded) time has come', () => {
    const schedule = new BookmarkSchedule<string>();
    schedule.add('a', 1_500);
    schedule.add('b', 2_000);
    schedule.add('c', 5_000);
    expect(schedule.popExpired(1_999)).toEqual([]);
    expect(schedule.popExpired(2_000).sort()).toEqual(['a', 'b']);
    expect(schedule.popExpired(4_999)).toEqual([]);
    expect(schedule.popExpired(9_000)).toEqual(['c']);
    expect(schedule.popExpired(9_000)).toEqual([]);
  });
});

describe('JitteredTicker', () => {
  it('ticks every period plus up to 25% jitter on the injected clock', async () => {
    const clock = new FakeClock(0);
    const ticks: number[] = [];
    const ticker = new JitteredTicker(clock, () => ticks.push(clock.now()), 1000, 0.25, () => 1);
    ticker.start();
    await clock.advance(5000);
    expect(ticks).toEqual([1250, 2500, 3750, 5000]);
    ticker.stop();
    await clock.advance(5000);
    expect(ticks).toHaveLength(4);
  });
});
