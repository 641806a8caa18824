import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { ReadyState, retryAfterForUnreadyCache } from './ready.js';

describe('retryAfterForUnreadyCache', () => {
  it('is clamp(e^(0.06·downSeconds), 1, 30), truncated', () => {
    expect(retryAfterForUnreadyCache(0)).toBe(1);
    expect(retryAfterForUnreadyCache(20_000)).toBe(3);
    expect(retryAfterForUnreadyCache(40_000)).toBe(11);
    expect(retryAfterForUnreadyCache(120_000)).toBe(30);
  });
});

describe('ReadyState', () => {
  it('fails checks with 429 "storage is (re)initializing" and a Retry-After from the downtime', async () => {
    const clock = new FakeClock(0);
    const ready = new ReadyState(clock);
    await clock.advance(40_000);
    expect(() => ready.check()).toThrowError(
      expect.objectContaining({
        status: expect.objectContaining({ code: 429, message: 'storage is (re)initializing', details: { retryAfterSeconds: 11 } }),
      }),
    );
    const waiting = ready.wait();
    ready.setReady();
    await waiting;
    expect(() => ready.check()).not.toThrow();
    await clock.advance(1000);
    ready.setPending(new Error('watch failed'));
    expect(() => ready.check()).toThrowError('storage is (re)initializing: watch failed');
    ready.stop();
    await expect(ready.wait()).rejects.toThrowError('storage is (re)initializing: cacher stopped');
  });
});
