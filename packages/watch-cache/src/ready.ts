import { StatusError } from '@kapi/apimachinery';
import type { Clock } from './clock.js';

/** Retry-After for a cache that has been down `downMs`: clamp(e^(0.06·downSeconds), 1, 30), truncated (util.go). */
export function retryAfterForUnreadyCache(downMs: number): number {
  const seconds = Math.max(0, downMs) / 1000;
  return Math.trunc(Math.min(30, Math.max(1, Math.exp(0.06 * seconds))));
}

type ReadyPhase = 'pending' | 'ready' | 'stopped';

/** Whether the cache can serve (cacher/ready.go), and since when it cannot. */
export class ReadyState {
  private phase: ReadyPhase = 'pending';
  private downSince: number;
  private lastError: string | undefined;
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];

  constructor(private readonly clock: Clock) {
    this.downSince = clock.now();
  }

  get isReady(): boolean {
    return this.phase === 'ready';
  }

  get isStopped(): boolean {
    return this.phase === 'stopped';
  }

  setReady(): void {
    if (this.phase === 'stopped') return;
    this.phase = 'ready';
    this.lastError = undefined;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.resolve();
  }

  /** Marks the cache as (re)initializing, optionally remembering why. */
  setPending(error?: unknown): void {
    if (this.phase === 'stopped') return;
    if (this.phase === 'ready') this.downSince = this.clock.now();
    this.phase = 'pending';
    if (error !== undefined) this.lastError = error instanceof Error ? error.message : String(error);
  }

  stop(): void {
    if (this.phase === 'ready') this.downSince = this.clock.now();
    this.lastError = 'cacher stopped';
    this.phase = 'stopped';
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(this.unreadyError());
  }

  /** Throws 429 `storage is (re)initializing[: <error>]` with Retry-After unless ready. */
  check(): void {
    if (this.phase !== 'ready') throw this.unreadyError();
  }

  /** Resolves once ready; rejects when stopped first. */
  wait(): Promise<void> {
    if (this.phase === 'ready') return Promise.resolve();
    if (this.phase === 'stopped') return Promise.reject(this.unreadyError());
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private unreadyError(): StatusError {
    const message = this.lastError ? `storage is (re)initializing: ${this.lastError}` : 'storage is (re)initializing';
    return StatusError.tooManyRequests(message, retryAfterForUnreadyCache(this.clock.now() - this.downSince));
  }
}
