import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { WatchCacheEvent } from './watch-cache-event.js';
import { WatchCacheHistory } from './watch-cache-history.js';

function history(options: { min?: number; max?: number } = {}) {
  const clock = { now: 0 };
  const log = new WatchCacheHistory({
    freshDurationMs: 75_000,
    minCapacity: options.min ?? 4,
    maxCapacity: options.max ?? 16,
  });
  const add = (revision: number) => {
    const object: KubeObject = { metadata: { name: `o${revision}`, resourceVersion: String(revision) } };
    log.add(new WatchCacheEvent('ADDED', `/r/o${revision}`, object, undefined, revision, clock.now));
  };
  return { log, clock, add };
}

describe('WatchCacheHistory', () => {
  it('right after a reset serves every revision from the list revision on', () => {
    const { log, add } = history();
    log.reset(10);
    expect(log.eventsSince(10)).toEqual([]);
    add(11);
    add(12);
    expect(log.eventsSince(10).map((event) => event.resourceVersion)).toEqual([11, 12]);
    expect(log.eventsSince(11).map((event) => event.resourceVersion)).toEqual([12]);
    expect(log.eventsSince(50)).toEqual([]);
    expect(() => log.eventsSince(9)).toThrowError('too old resource version: 9 (10)');
  });

  it('answers revisions older than the window with 410 Expired "too old resource version: X (oldest-1)"', () => {
    const { log, clock, add } = history({ min: 4, max: 4 });
    log.reset(10);
    for (let revision = 11; revision <= 16; revision++) {
      clock.now += 100_000;
      add(revision);
    }
    expect(log.size).toBe(4);
    expect(log.eventsSince(12).map((event) => event.resourceVersion)).toEqual([13, 14, 15, 16]);
    let caught: unknown;
    try {
      log.eventsSince(11);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      status: { code: 410, reason: 'Expired', message: 'too old resource version: 11 (12)' },
    });
  });

  it('doubles its capacity when full while the oldest event is fresh, up to the maximum', () => {
    const { log, clock, add } = history({ min: 4, max: 16 });
    log.reset(0);
    for (let revision = 1; revision <= 20; revision++) {
      clock.now += 1000;
      add(revision);
    }
    expect(log.capacity).toBe(16);
    expect(log.size).toBe(16);
    expect(log.eventsSince(4).map((event) => event.resourceVersion)).toEqual(Array.from({ length: 16 }, (_, index) => index + 5));
    expect(() => log.eventsSince(3)).toThrowError('too old resource version: 3 (4)');
  });

  it('evicts instead of growing when the oldest event is older than the window', () => {
    const { log, clock, add } = history({ min: 4, max: 16 });
    log.reset(0);
    for (let revision = 1; revision <= 4; revision++) add(revision);
    clock.now += 80_000;
    add(5);
    expect(log.capacity).toBe(4);
    expect(log.eventsSince(1).map((event) => event.resourceVersion)).toEqual([2, 3, 4, 5]);
  });

  it('halves its capacity when full and the event a quarter back from the newest is stale', () => {
    const { log, clock, add } = history({ min: 4, max: 16 });
    log.reset(0);
    for (let revision = 1; revision <= 8; revision++) add(revision);
    expect(log.capacity).toBe(8);
    clock.now += 100_000;
    add(9);
    expect(log.capacity).toBe(4);
    expect(log.eventsSince(5).map((event) => event.resourceVersion)).toEqual([6, 7, 8, 9]);
    expect(() => log.eventsSince(4)).toThrowError('too old resource version: 4 (5)');
  });
});
