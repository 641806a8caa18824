import { StatusError } from '@kapi/apimachinery';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isRetriable, withRetry } from './retry.js';

describe('isRetriable', () => {
  it('retries throttling, server errors, timeouts and resets, and nothing else', () => {
    expect(isRetriable(StatusError.of(429, 'TooManyRequests', 'slow down'))).toBe(true);
    expect(isRetriable(StatusError.of(503, 'ServiceUnavailable', 'down'))).toBe(true);
    expect(isRetriable(StatusError.of(504, 'Timeout', 'timeout'))).toBe(true);
    expect(isRetriable(StatusError.of(500, 'InternalError', 'oops'))).toBe(true);
    expect(isRetriable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isRetriable(new Error('request timed out after 1000 ms'))).toBe(true);
    expect(isRetriable(StatusError.of(403, 'Forbidden', 'denied'))).toBe(false);
    expect(isRetriable(StatusError.of(422, 'Invalid', 'invalid'))).toBe(false);
    expect(isRetriable(StatusError.of(400, 'BadRequest', 'admission webhook "x" denied the request'))).toBe(false);
    expect(isRetriable(new Error('boom'))).toBe(false);
  });
});

describe('withRetry', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('backs off exponentially up to the cap, honouring Retry-After, then returns the result', async () => {
    const delays: number[] = [];
    const failures = [
      StatusError.of(503, 'ServiceUnavailable', 'down'),
      StatusError.of(503, 'ServiceUnavailable', 'down'),
      StatusError.of(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 7 }),
      StatusError.of(503, 'ServiceUnavailable', 'down'),
      StatusError.of(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 60 }),
    ];
    const result = withRetry(
      async () => {
        const failure = failures.shift();
        if (failure) throw failure;
        return 'done';
      },
      { initialMs: 1000, maxMs: 10_000 },
      new AbortController().signal,
      (_error, delay) => delays.push(delay),
    );
    await vi.runAllTimersAsync();
    await expect(result).resolves.toBe('done');
    expect(delays).toEqual([1000, 2000, 7000, 8000, 10_000]);
  });

  it('throws a non-retriable error at once', async () => {
    let calls = 0;
    const denied = StatusError.of(403, 'Forbidden', 'configmaps "c" is forbidden');
    await expect(
      withRetry(
        async () => {
          calls++;
          throw denied;
        },
        { initialMs: 10, maxMs: 100 },
        new AbortController().signal,
      ),
    ).rejects.toBe(denied);
    expect(calls).toBe(1);
  });
});
