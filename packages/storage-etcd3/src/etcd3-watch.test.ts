import { RevisionCompactedError, type KVEvent, type KVWatch } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3Backend } from './etcd3-backend.js';
import { startEtcd, type EtcdInstance } from './testing/index.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const decode = (value: Uint8Array | undefined): string | undefined =>
  value === undefined ? undefined : new TextDecoder().decode(value);

let etcd: EtcdInstance;
let backend: Etcd3Backend;
let counter = 0;
const fresh = (): string => `/watch-test-${++counter}/`;

beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 300 });
  backend = await Etcd3Backend.connect({
    endpoints: [etcd.endpoint],
    watchBackoffMs: { initial: 50, max: 500 },
  });
});
afterAll(async () => {
  await backend?.close();
  await etcd?.stop();
});

/** Collects a watch's output. */
function record(prefix: string, startRevision: number, progressNotify = false) {
  const events: KVEvent[] = [];
  const progress: number[] = [];
  const errors: Error[] = [];
  const waiters: (() => void)[] = [];
  const notify = (): void => waiters.splice(0).forEach((wake) => wake());
  const watch: KVWatch = backend.watch(
    { key: prefix, prefix: true, startRevision, progressNotify },
    {
      onEvents: (batch) => {
        events.push(...batch);
        notify();
      },
      onProgress: (revision) => {
        progress.push(revision);
        notify();
      },
      onError: (error) => {
        errors.push(error);
        notify();
      },
    },
  );
  const until = async (condition: () => boolean, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the watch');
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  return { events, progress, errors, watch, until };
}

/** Retries a write while etcd restarts. */
async function retrying<T>(operation: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('Etcd3Backend watch', () => {
  it('replays history, then delivers live events, with previous values', async () => {
    const prefix = fresh();
    const a = await backend.create(`${prefix}a`, text('a1'));
    const b = await backend.create(`${prefix}b`, text('b1'));
    const a2 = await backend.update(`${prefix}a`, text('a2'), a.revision);
    const watch = record(prefix, a.revision);
    await watch.until(() => watch.events.length >= 3);
    const bDeleted = await backend.delete(`${prefix}b`, b.revision);
    await backend.create(`${fresh()}elsewhere`, text('x'));
    await watch.until(() => watch.events.length >= 4);
    watch.watch.cancel();
    expect(watch.errors).toEqual([]);
    expect(watch.events.map((event) => [event.type, event.entry.key, event.entry.modRevision])).toEqual([
      ['put', `${prefix}a`, a.revision],
      ['put', `${prefix}b`, b.revision],
      ['put', `${prefix}a`, a2.revision],
      ['delete', `${prefix}b`, bDeleted.revision],
    ]);
    const [created, , updated, deleted] = watch.events;
    expect(created?.previous).toBeUndefined();
    expect(decode(updated?.entry.value)).toBe('a2');
    expect(decode(updated?.previous?.value)).toBe('a1');
    expect(updated?.entry.createRevision).toBe(a.revision);
    expect(deleted?.entry.value).toHaveLength(0);
    expect(decode(deleted?.previous?.value)).toBe('b1');
    expect(deleted?.previous?.modRevision).toBe(b.revision);
  });

  it('watches a single key', async () => {
    const prefix = fresh();
    const start = (await backend.currentRevision()) + 1;
    const events: KVEvent[] = [];
    const watch = backend.watch(
      { key: `${prefix}a`, prefix: false, startRevision: start },
      { onEvents: (batch) => events.push(...batch), onError: () => undefined },
    );
    await backend.create(`${prefix}ab`, text('no'));
    const hit = await backend.create(`${prefix}a`, text('yes'));
    for (let index = 0; index < 100 && events.length === 0; index++)
      await new Promise((r) => setTimeout(r, 20));
    watch.cancel();
    expect(events.map((event) => event.entry.modRevision)).toEqual([hit.revision]);
  });

  it('resumes without losing or repeating events when etcd restarts mid-stream', async () => {
    const prefix = fresh();
    const written: number[] = [];
    // More history than etcd 3.4 replays in one batch (1000 revisions), so that the restart lands mid-replay.
    for (let batch = 0; batch < 24; batch++) {
      const results = await Promise.all(
        Array.from({ length: 64 }, (_, index) => backend.create(`${prefix}k${batch}-${index}`, text('v'))),
      );
      written.push(...results.map((result) => result.revision));
    }
    written.sort((left, right) => left - right);
    const watch = record(prefix, written[0]!);
    await watch.until(() => watch.events.length > 0);
    const deliveredBeforeRestart = watch.events.length;
    await etcd.restart();
    expect(deliveredBeforeRestart).toBeLessThan(written.length);
    for (let index = 0; index < 100; index++) {
      written.push((await retrying(() => backend.create(`${prefix}k${index}`, text(`v${index}`)))).revision);
    }
    await watch.until(() => watch.events.length >= written.length, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    watch.watch.cancel();
    expect(watch.errors).toEqual([]);
    expect(watch.events.map((event) => event.entry.modRevision)).toEqual(written);
  }, 30_000);

  it('fails a watch from a compacted revision with RevisionCompactedError', async () => {
    const prefix = fresh();
    const first = await backend.create(`${prefix}a`, text('1'));
    const second = await backend.update(`${prefix}a`, text('2'), first.revision);
    await backend.compact(second.revision);
    const watch = record(prefix, first.revision);
    await watch.until(() => watch.errors.length > 0);
    const [error] = watch.errors;
    expect(error).toBeInstanceOf(RevisionCompactedError);
    expect(error).toMatchObject({ requestedRevision: first.revision, compactedRevision: second.revision });
    expect(watch.events).toEqual([]);
    // From the compacted revision itself the watch works.
    const ok = record(prefix, second.revision);
    await ok.until(() => ok.events.length > 0);
    ok.watch.cancel();
    expect(ok.events.map((event) => event.entry.modRevision)).toEqual([second.revision]);
  });

  it('sends periodic progress notifications while only another prefix is written', async () => {
    const quiet = fresh();
    const busy = fresh();
    const start = await backend.currentRevision();
    const watch = record(quiet, start + 1, true);
    const silent = record(quiet, start + 1, false);
    let writing = true;
    const writer = (async () => {
      for (let index = 0; writing; index++) {
        await backend.create(`${busy}k${index}`, text('x'));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      await watch.until(() => watch.progress.length >= 3);
    } finally {
      writing = false;
      await writer;
    }
    watch.watch.cancel();
    silent.watch.cancel();
    expect(watch.events).toEqual([]);
    expect(watch.progress[0]).toBeGreaterThanOrEqual(start);
    for (let index = 1; index < watch.progress.length; index++) {
      expect(watch.progress[index]!).toBeGreaterThan(watch.progress[index - 1]!);
    }
    expect(silent.progress).toEqual([]);
  });

  it('delivers nothing after cancel', async () => {
    const prefix = fresh();
    const start = (await backend.currentRevision()) + 1;
    const watch = record(prefix, start);
    await backend.create(`${prefix}a`, text('1'));
    await watch.until(() => watch.events.length === 1);
    watch.watch.cancel();
    await backend.create(`${prefix}b`, text('2'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(watch.events).toHaveLength(1);
  });
});
