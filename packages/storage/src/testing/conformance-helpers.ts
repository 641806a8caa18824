import { StatusError, type KubeObject, type Selector, type Status } from '@kapi/apimachinery';
import { expect } from 'vitest';
import type { Interface, StorageWatchEvent, Watch } from '../interfaces.js';
import type { KVBackend } from '../kv-backend.js';
import { StorageError, type StorageErrorCode } from '../storage-error.js';

/** What the conformance suite runs against. */
export interface ConformanceTarget {
  /** The storage under test. */
  store: Interface;
  /** The raw backend under it, for corrupting bytes and compaction. */
  kv: KVBackend;
  /** Releases the target (called after each test). */
  close(): Promise<void>;
}

/** What each area of the suite gets: the current test's target and fresh key prefixes. */
export interface SuiteContext {
  /** The target of the running test. */
  readonly target: ConformanceTarget;
  /** A key prefix no other test uses, ending with `/`. */
  prefix(): string;
}

/** A ConfigMap-like object. */
export function testObject(
  name: string,
  options: { labels?: Record<string, string>; data?: Record<string, string>; uid?: string; namespace?: string } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: options.uid ?? `uid-${name}`,
      ...(options.labels ? { labels: options.labels } : {}),
    },
    data: options.data ?? { value: name },
  };
}

/** An equality selector (`a=b,c=d`) over labels or fields: a stand-in for the apimachinery parsers. */
export function equalitySelector(requirements: Record<string, string>): Selector {
  const entries = Object.entries(requirements);
  return {
    matches: (values) => entries.every(([key, value]) => values[key] === value),
    empty: () => entries.length === 0,
    toString: () => entries.map(([key, value]) => `${key}=${value}`).join(','),
    requiresExactMatch: (field) => requirements[field],
  };
}

export function revisionOf(object: KubeObject | Status | undefined): number {
  const resourceVersion = object?.metadata?.resourceVersion;
  expect(resourceVersion, 'resourceVersion').toMatch(/^\d+$/);
  return Number(resourceVersion);
}

export function nameOf(object: KubeObject | Status): string | undefined {
  return (object as KubeObject).metadata?.name;
}

/** Awaits `promise` expecting a StorageError with `code`; returns it. */
export async function expectStorageError(promise: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected StorageError ${code}`).toBeDefined();
  if (!StorageError.isInstance(error)) throw new Error(`expected StorageError ${code}, got ${String(error)}`);
  expect(error.code).toBe(code);
  return error;
}

/** Awaits `promise` expecting a StatusError with HTTP `code`; returns it. */
export async function expectStatusError(promise: Promise<unknown>, code: number): Promise<StatusError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected StatusError ${code}`).toBeDefined();
  if (!StatusError.isInstance(error)) throw new Error(`expected StatusError ${code}, got ${String(error)}`);
  expect(error.code).toBe(code);
  return error;
}

/** Awaits `promise` expecting it to reject; returns the error. */
export async function expectRejection(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    () => ({ rejected: false as const }),
    (error: unknown) => ({ rejected: true as const, error }),
  );
  expect(outcome.rejected, 'expected a rejection').toBe(true);
  return outcome.rejected ? outcome.error : undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const timedOut = Symbol('timed out');

/**
 * Reads a watch one event at a time with timeouts. A pending read survives a timeout, so no event is lost.
 * BOOKMARK events are skipped unless asked for.
 */
export class EventReader {
  private readonly iterator: AsyncIterator<StorageWatchEvent>;
  private pending: Promise<IteratorResult<StorageWatchEvent>> | undefined;

  constructor(readonly watch: Watch) {
    this.iterator = watch[Symbol.asyncIterator]();
  }

  /** The next event (or `undefined` when the watch ended); throws after `timeoutMs`. */
  async nextOrEnd(options: { timeoutMs?: number; bookmarks?: boolean } = {}): Promise<StorageWatchEvent | undefined> {
    const deadline = Date.now() + (options.timeoutMs ?? 5000);
    for (;;) {
      this.pending ??= this.iterator.next();
      const remaining = deadline - Date.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const result = await Promise.race([
        this.pending,
        new Promise<typeof timedOut>((resolve) => (timer = setTimeout(() => resolve(timedOut), Math.max(0, remaining)))),
      ]);
      clearTimeout(timer);
      if (result === timedOut) throw new Error(`no watch event within ${options.timeoutMs ?? 5000} ms`);
      this.pending = undefined;
      if (result.done) return undefined;
      if (result.value.type === 'BOOKMARK' && !options.bookmarks) continue;
      return result.value;
    }
  }

  /** The next event; fails when the watch ends. */
  async next(options: { timeoutMs?: number; bookmarks?: boolean } = {}): Promise<StorageWatchEvent> {
    const event = await this.nextOrEnd(options);
    if (!event) throw new Error('the watch ended');
    return event;
  }

  /** The next `count` events. */
  async take(count: number, options: { timeoutMs?: number } = {}): Promise<StorageWatchEvent[]> {
    const events: StorageWatchEvent[] = [];
    for (let index = 0; index < count; index++) events.push(await this.next(options));
    return events;
  }

  /** Asserts that no (non-bookmark) event arrives within `ms`. */
  async expectQuiet(ms = 200): Promise<void> {
    let event: StorageWatchEvent | undefined;
    try {
      event = await this.nextOrEnd({ timeoutMs: ms });
    } catch {
      return;
    }
    expect(event, 'no event expected').toBeUndefined();
  }

  /** Asserts that the watch ends (after skipping bookmarks) within `timeoutMs`. */
  async expectEnd(timeoutMs = 5000): Promise<void> {
    const event = await this.nextOrEnd({ timeoutMs });
    expect(event, 'expected the watch to end').toBeUndefined();
  }

  stop(): void {
    this.watch.stop();
  }
}

/** Summarises events as `TYPE name rv` lines for comparisons. */
export function describeEvents(events: StorageWatchEvent[]): string[] {
  return events.map((event) => `${event.type} ${nameOf(event.object) ?? ''} ${event.object.metadata?.resourceVersion ?? ''}`);
}
