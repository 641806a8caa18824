import { StatusError } from '@kapi/apimachinery';
import { sleep } from '@kapi/client';

/** Network errors after which a request may simply be tried again. */
const retriableCodes: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

/**
 * True for errors a migration waits out instead of failing: 429, 500, 503, 504 and ServerTimeout/Timeout
 * statuses, timeouts and connection resets (the in-tree controller's list; the sigs migrator retried
 * everything, forever).
 */
export function isRetriable(error: unknown): boolean {
  if (StatusError.isInstance(error)) {
    return [429, 500, 502, 503, 504].includes(error.code) || ['ServerTimeout', 'Timeout', 'TooManyRequests', 'InternalError'].includes(error.reason);
  }
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && retriableCodes.has(code)) return true;
  return /timed out|socket hang up/i.test(error.message);
}

/** The server's suggested wait (Status details.retryAfterSeconds), in milliseconds. */
export function retryAfterMs(error: unknown): number {
  if (!StatusError.isInstance(error)) return 0;
  return (error.status.details?.retryAfterSeconds ?? 0) * 1000;
}

/** Exponential backoff of retriable errors: the delay doubles from `initialMs` up to `maxMs`. */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/** Gentle defaults: 200 ms doubling to 30 s. */
export const defaultBackoff: BackoffOptions = { initialMs: 200, maxMs: 30_000 };

/**
 * Runs `action` until it succeeds or fails with a non-retriable error (which it throws). Between
 * attempts it waits the larger of the backoff and the server's Retry-After, never more than the cap.
 */
export async function withRetry<T>(
  action: () => Promise<T>,
  backoff: BackoffOptions,
  signal: AbortSignal,
  onRetry?: (error: unknown, delayMs: number) => void,
): Promise<T> {
  let delay = backoff.initialMs;
  for (;;) {
    try {
      return await action();
    } catch (error) {
      if (!isRetriable(error) || signal.aborted) throw error;
      const wait = Math.min(backoff.maxMs, Math.max(delay, retryAfterMs(error)));
      onRetry?.(error, wait);
      await sleep(wait, signal);
      if (signal.aborted) throw error;
      delay = Math.min(backoff.maxMs, delay * 2);
    }
  }
}
