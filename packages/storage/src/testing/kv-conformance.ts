import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KVBackend, KVEvent, KVWatch } from '../kv-backend.js';
import { sleep } from './conformance-helpers.js';

/** What the raw backend suite runs against. */
export interface KVConformanceTarget {
  kv: KVBackend;
  close(): Promise<void>;
}

const bytes = (text: string): Uint8Array => Buffer.from(text);
const text = (value: Uint8Array | undefined): string | undefined => (value ? Buffer.from(value).toString() : undefined);

/** Records what a backend watch delivers. */
class Recorder {
  readonly events: KVEvent[] = [];
  readonly progress: number[] = [];
  readonly errors: Error[] = [];
  /** Everything in arrival order: `event:<rev>`, `progress:<rev>`, `error`. */
  readonly log: string[] = [];
  readonly listener = {
    onEvents: (batch: KVEvent[]) => {
      for (const event of batch) {
        this.events.push(event);
        this.log.push(`event:${event.entry.modRevision}`);
      }
    },
    onProgress: (revision: number) => {
      this.progress.push(revision);
      this.log.push(`progress:${revision}`);
    },
    onError: (error: Error) => {
      this.errors.push(error);
      this.log.push('error');
    },
  };

  async until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out; delivered so far: ${this.log.join(' ')}`);
      await sleep(10);
    }
  }
}

function expectNamedError(error: unknown, name: string): void {
  expect(error instanceof Error ? error.name : String(error)).toBe(name);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
}

let suiteCounter = 0;

/**
 * Declares the raw {@link KVBackend} contract suite: revisions, conditional writes, historical reads,
 * compaction, ranges, write conditions, watch replay and ordering, progress notifications and TTL.
 * Revisions are asserted relative to the backend's current one, so a target may be shared between tests.
 * The backend must send progress notifications at most ~1 s apart.
 */
export function runKVBackendConformance(name: string, newTarget: () => Promise<KVConformanceTarget>): void {
  const run = `${Date.now().toString(36)}${(suiteCounter++).toString(36)}`;
  let testCounter = 0;
  let target: KVConformanceTarget | undefined;
  let watches: KVWatch[] = [];
  const prefix = (): string => `/registry/kv-conformance/${run}-${(testCounter++).toString(36)}/`;
  const backend = (): KVBackend => {
    if (!target) throw new Error('the KV conformance target is not set up');
    return target.kv;
  };
  const watch = (...args: Parameters<KVBackend['watch']>): KVWatch => {
    const handle = backend().watch(...args);
    watches.push(handle);
    return handle;
  };

  describe(`KV backend conformance: ${name}`, () => {
    beforeEach(async () => {
      target = await newTarget();
    });
    afterEach(async () => {
      for (const handle of watches) handle.cancel();
      watches = [];
      const current = target;
      target = undefined;
      await current?.close();
    });

    it('advances the revision by exactly one per write, with create and mod revisions', async () => {
      const kv = backend();
      const key = `${prefix()}a`;
      const start = await kv.currentRevision();
      expect(start).toBeGreaterThanOrEqual(1);
      const created = await kv.create(key, bytes('1'));
      expect(created).toMatchObject({ succeeded: true, revision: start + 1 });
      const updated = await kv.update(key, bytes('2'), start + 1);
      expect(updated).toMatchObject({ succeeded: true, revision: start + 2 });
      expect((await kv.get(key)).entry).toMatchObject({ key, createRevision: start + 1, modRevision: start + 2 });
      const deleted = await kv.delete(key, start + 2);
      expect(deleted).toMatchObject({ succeeded: true, revision: start + 3 });
      expect(deleted.succeeded && text(deleted.previous?.value)).toBe('2');
      expect(await kv.currentRevision()).toBe(start + 3);
      const recreated = await kv.create(key, bytes('3'));
      expect(recreated.revision).toBe(start + 4);
      expect((await kv.get(key)).entry).toMatchObject({ createRevision: start + 4, modRevision: start + 4 });
    });

    it('refuses conflicting writes without advancing the revision', async () => {
      const kv = backend();
      const key = `${prefix()}a`;
      const created = await kv.create(key, bytes('1'));
      const revision = created.revision;
      const again = await kv.create(key, bytes('x'));
      expect(again).toMatchObject({ succeeded: false, reason: 'conflict' });
      expect(!again.succeeded && again.current?.modRevision).toBe(revision);
      expect(!again.succeeded && text(again.current?.value)).toBe('1');
      expect(await kv.update(key, bytes('x'), revision - 1)).toMatchObject({ succeeded: false, reason: 'conflict', current: { modRevision: revision } });
      expect(await kv.delete(key, revision + 100)).toMatchObject({ succeeded: false, reason: 'conflict' });
      const missing = await kv.update(`${key}-missing`, bytes('x'), revision);
      expect(missing.succeeded).toBe(false);
      expect(!missing.succeeded && missing.current).toBeUndefined();
      expect(await kv.currentRevision()).toBe(revision);
      expect(text((await kv.get(key)).entry?.value)).toBe('1');
    });

    it('reads older revisions, refuses future ones, and refuses compacted ones', async () => {
      const kv = backend();
      const base = prefix();
      const a1 = (await kv.create(`${base}a`, bytes('a1'))).revision;
      const b1 = (await kv.create(`${base}b`, bytes('b1'))).revision;
      const a2 = (await kv.update(`${base}a`, bytes('a2'), a1)).revision;
      await kv.delete(`${base}b`, b1);
      expect(text((await kv.get(`${base}a`, { revision: b1 })).entry?.value)).toBe('a1');
      expect((await kv.get(`${base}b`, { revision: a1 })).entry).toBeUndefined();
      const old = await kv.range({ key: base, prefix: true, revision: b1 });
      expect(old.entries.map((entry) => text(entry.value))).toEqual(['a1', 'b1']);
      expect((await kv.range({ key: base, prefix: true })).entries.map((entry) => text(entry.value))).toEqual(['a2']);
      const current = await kv.currentRevision();
      expectNamedError(await rejection(kv.get(`${base}a`, { revision: current + 10 })), 'FutureRevisionError');
      await kv.compact(a2);
      expect(await kv.compactedRevision()).toBe(a2);
      const compacted = await rejection(kv.get(`${base}a`, { revision: a1 }));
      expectNamedError(compacted, 'RevisionCompactedError');
      expect((compacted as { compactedRevision?: number }).compactedRevision).toBe(a2);
      expectNamedError(await rejection(kv.range({ key: base, prefix: true, revision: a1 })), 'RevisionCompactedError');
      expect(text((await kv.get(`${base}a`, { revision: a2 })).entry?.value)).toBe('a2');
      expect(text((await kv.get(`${base}a`)).entry?.value)).toBe('a2');
    });

    it('ranges in key order with startKey, limit, more, count and countOnly', async () => {
      const kv = backend();
      const base = prefix();
      for (const key of ['c', 'a', 'b', 'a/nested']) await kv.create(`${base}p/${key}`, bytes(key));
      await kv.create(`${base}px/other`, bytes('other'));
      const page = await kv.range({ key: `${base}p/`, prefix: true, limit: 2 });
      expect(page.entries.map((entry) => text(entry.value))).toEqual(['a', 'a/nested']);
      expect(page).toMatchObject({ more: true, count: 4 });
      const rest = await kv.range({ key: `${base}p/`, prefix: true, startKey: `${base}p/a/nested\u0000`, limit: 5 });
      expect(rest.entries.map((entry) => text(entry.value))).toEqual(['b', 'c']);
      expect(rest).toMatchObject({ more: false, count: 2 });
      const counted = await kv.range({ key: `${base}p`, prefix: true, countOnly: true });
      expect(counted.count).toBe(5);
      expect(counted.entries).toEqual([]);
      const exact = await kv.range({ key: `${base}p/b`, prefix: false });
      expect(exact.entries.map((entry) => entry.key)).toEqual([`${base}p/b`]);
      expect(exact.revision).toBe(await kv.currentRevision());
    });

    it('applies a write condition on the exact current value of another key', async () => {
      const kv = backend();
      const base = prefix();
      await kv.create(`${base}vote`, bytes('v1'));
      const before = await kv.currentRevision();
      expect(await kv.create(`${base}a`, bytes('x'), { condition: { key: `${base}vote`, value: 'v2' } })).toMatchObject({
        succeeded: false,
        reason: 'condition',
      });
      expect(await kv.create(`${base}a`, bytes('x'), { condition: { key: `${base}missing`, value: '' } })).toMatchObject({
        succeeded: false,
        reason: 'condition',
      });
      expect(await kv.currentRevision()).toBe(before);
      const created = await kv.create(`${base}a`, bytes('x'), { condition: { key: `${base}vote`, value: 'v1' } });
      expect(created.succeeded).toBe(true);
      expect(await kv.update(`${base}a`, bytes('y'), created.revision, { condition: { key: `${base}vote`, value: 'no' } })).toMatchObject({
        succeeded: false,
        reason: 'condition',
      });
      expect(await kv.delete(`${base}a`, created.revision, { condition: { key: `${base}vote`, value: 'v1' } })).toMatchObject({
        succeeded: true,
      });
    });

    it('replays history to a watch, then delivers live events in revision order with previous entries', async () => {
      const kv = backend();
      const base = prefix();
      const first = (await kv.create(`${base}a`, bytes('1'))).revision;
      await kv.create(`${prefix()}elsewhere`, bytes('o'));
      const second = (await kv.update(`${base}a`, bytes('2'), first)).revision;
      const recorder = new Recorder();
      const handle = watch({ key: base, prefix: true, startRevision: first }, recorder.listener);
      await recorder.until(() => recorder.events.length >= 2);
      const third = (await kv.delete(`${base}a`, second)).revision;
      const fourth = (await kv.create(`${base}b`, bytes('b'))).revision;
      await recorder.until(() => recorder.events.length >= 4);
      expect(recorder.events.map((event) => [event.type, event.entry.modRevision])).toEqual([
        ['put', first],
        ['put', second],
        ['delete', third],
        ['put', fourth],
      ]);
      expect(recorder.events[0]?.previous).toBeUndefined();
      expect(text(recorder.events[1]?.previous?.value)).toBe('1');
      expect(text(recorder.events[2]?.previous?.value)).toBe('2');
      expect(recorder.events[2]?.entry.key).toBe(`${base}a`);
      handle.cancel();
      await kv.create(`${base}c`, bytes('c'));
      await sleep(100);
      expect(recorder.events).toHaveLength(4);
      expect(recorder.errors).toEqual([]);
    });

    it('watches one key exactly when not a prefix watch', async () => {
      const kv = backend();
      const base = prefix();
      const start = await kv.currentRevision();
      const recorder = new Recorder();
      watch({ key: `${base}a`, prefix: false, startRevision: start + 1 }, recorder.listener);
      await kv.create(`${base}ab`, bytes('no'));
      await kv.create(`${base}a/child`, bytes('no'));
      const own = await kv.create(`${base}a`, bytes('yes'));
      await recorder.until(() => recorder.events.length >= 1);
      await sleep(50);
      expect(recorder.events.map((event) => event.entry.modRevision)).toEqual([own.revision]);
    });

    it('fails a watch from a compacted revision through onError', async () => {
      const kv = backend();
      const key = `${prefix()}a`;
      const first = (await kv.create(key, bytes('1'))).revision;
      const second = (await kv.update(key, bytes('2'), first)).revision;
      await kv.update(key, bytes('3'), second);
      const current = await kv.currentRevision();
      await kv.compact(current);
      const recorder = new Recorder();
      watch({ key, prefix: false, startRevision: first }, recorder.listener);
      await recorder.until(() => recorder.errors.length > 0);
      expectNamedError(recorder.errors[0], 'RevisionCompactedError');
      expect(recorder.events).toEqual([]);
    });

    it('sends progress notifications to a quiet watch, after its events, while other keys change', async () => {
      const kv = backend();
      const base = prefix();
      const other = prefix();
      const start = (await kv.create(`${base}a`, bytes('a'))).revision;
      const recorder = new Recorder();
      watch({ key: base, prefix: true, startRevision: start, progressNotify: true }, recorder.listener);
      let index = 0;
      const deadline = Date.now() + 6000;
      let written = start;
      while (Date.now() < deadline && !(recorder.progress.length >= 2 && (recorder.progress.at(-1) as number) > start)) {
        written = (await kv.create(`${other}o${index++}`, bytes('o'))).revision;
        await sleep(50);
      }
      expect(recorder.progress.length).toBeGreaterThanOrEqual(1);
      expect(recorder.log[0]).toBe(`event:${start}`);
      const last = recorder.progress.at(-1) as number;
      expect(last).toBeGreaterThan(start);
      expect(last).toBeLessThanOrEqual(Math.max(written, await kv.currentRevision()));
      for (let position = 1; position < recorder.progress.length; position++) {
        expect(recorder.progress[position]).toBeGreaterThanOrEqual(recorder.progress[position - 1] as number);
      }
    });

    it('expires a key written with a TTL as a delete event', async () => {
      const kv = backend();
      const key = `${prefix()}short-lived`;
      const created = await kv.create(key, bytes('x'), { ttlSeconds: 1 });
      const recorder = new Recorder();
      watch({ key, prefix: false, startRevision: created.revision + 1 }, recorder.listener);
      await recorder.until(() => recorder.events.length > 0, 8000);
      expect(recorder.events[0]?.type).toBe('delete');
      expect(recorder.events[0]?.entry.modRevision).toBeGreaterThan(created.revision);
      expect(text(recorder.events[0]?.previous?.value)).toBe('x');
      expect((await kv.get(key)).entry).toBeUndefined();
    });
  });
}
