import { RevisionCompactedError } from '@kapi/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend.js';
import { EventRecorder } from './test-support/event-recorder.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('SqliteBackend watch', () => {
  let database: ReturnType<typeof temporaryDatabase>;
  let kv: SqliteBackend;

  beforeEach(async () => {
    database = temporaryDatabase();
    kv = await SqliteBackend.open({ path: database.path, progressNotifyIntervalMs: 30, pollIntervalMs: 10 });
  });
  afterEach(async () => {
    await kv.close();
    database.remove();
  });

  it('replays history from startRevision, then delivers live events in order', async () => {
    await kv.create('/p/a', bytes('a1')); // 2
    await kv.create('/q/a', bytes('q')); // 3
    await kv.update('/p/a', bytes('a2'), 2); // 4
    await kv.create('/p/b', bytes('b1')); // 5
    const recorder = new EventRecorder();
    kv.watch({ key: '/p/', prefix: true, startRevision: 4 }, recorder);
    await kv.delete('/p/a', 4); // 6
    await kv.create('/q/b', bytes('q')); // 7
    await kv.update('/p/b', bytes('b2'), 5); // 8
    expect(recorder.summary()).toEqual(['put /p/a@4', 'put /p/b@5', 'delete /p/a@6', 'put /p/b@8']);
    const [update, create, deletion, live] = recorder.events;
    expect(update?.previous?.modRevision).toBe(2);
    expect(new TextDecoder().decode(update?.entry.value)).toBe('a2');
    expect(create?.previous).toBeUndefined();
    expect(deletion?.entry).toMatchObject({ createRevision: 2, modRevision: 6, value: new Uint8Array(0) });
    expect(deletion?.previous?.modRevision).toBe(4);
    expect(live?.previous?.modRevision).toBe(5);
    expect(recorder.errors).toEqual([]);
  });

  it('replays a prefix whose rows fill their revision span and one whose rows are scattered alike', async () => {
    // /d/ rows fill their span but for one /x/ row (read by one statement over the span, which must skip
    // it); /s/ rows sit one in ten among /t/ rows (read one by one).
    for (let i = 0; i < 15; i++) await kv.create(`/d/${i}`, bytes(`d${i}`)); // 2..16
    await kv.create('/x/mid', bytes('x')); // 17
    for (let i = 15; i < 30; i++) await kv.create(`/d/${i}`, bytes(`d${i}`)); // 18..32
    await kv.update('/d/3', bytes('d3b'), 5); // 33
    for (let i = 0; i < 30; i++) {
      await kv.create(`/s/${i}`, bytes(`s${i}`)); // 34 + 10i
      for (let j = 0; j < 9; j++) await kv.create(`/t/${i}-${j}`, bytes('t'));
    }
    const dense = new EventRecorder();
    const scattered = new EventRecorder();
    kv.watch({ key: '/d/', prefix: true, startRevision: 2 }, dense);
    kv.watch({ key: '/s/', prefix: true, startRevision: 2 }, scattered);
    await kv.create('/d/live', bytes('x')); // 334
    const created = Array.from({ length: 30 }, (_, i) => `put /d/${i}@${i < 15 ? i + 2 : i + 3}`);
    expect(dense.summary()).toEqual([...created, 'put /d/3@33', 'put /d/live@334']);
    expect(new TextDecoder().decode(dense.events[30]?.entry.value)).toBe('d3b');
    expect(dense.events[30]?.previous?.modRevision).toBe(5);
    expect(scattered.summary()).toEqual(Array.from({ length: 30 }, (_, i) => `put /s/${i}@${34 + i * 10}`));
    expect(new TextDecoder().decode(scattered.events[29]?.entry.value)).toBe('s29');
    expect([...dense.errors, ...scattered.errors]).toEqual([]);
  });

  it('watches one exact key from now with startRevision 0', async () => {
    await kv.create('/a', bytes('1'));
    const recorder = new EventRecorder();
    kv.watch({ key: '/a', prefix: false, startRevision: 0 }, recorder);
    await kv.create('/ab', bytes('x'));
    await kv.update('/a', bytes('2'), 2);
    expect(recorder.summary()).toEqual(['put /a@4']);
  });

  it('starts a watch from a future revision without earlier events', async () => {
    const recorder = new EventRecorder();
    kv.watch({ key: '/', prefix: true, startRevision: 4 }, recorder);
    await kv.create('/a', bytes('1'));
    await kv.create('/b', bytes('1'));
    await kv.create('/c', bytes('1'));
    expect(recorder.summary()).toEqual(['put /c@4']);
  });

  it('fails a watch from a compacted revision and stops after cancel', async () => {
    await kv.create('/a', bytes('1'));
    await kv.update('/a', bytes('2'), 2);
    await kv.update('/a', bytes('3'), 3);
    await kv.compact(4);
    const compacted = new EventRecorder();
    kv.watch({ key: '/', prefix: true, startRevision: 3 }, compacted);
    const fromCompacted = new EventRecorder();
    kv.watch({ key: '/', prefix: true, startRevision: 4 }, fromCompacted);
    await Promise.resolve();
    expect(compacted.errors[0]).toBeInstanceOf(RevisionCompactedError);
    expect(compacted.errors[0]).toMatchObject({ requestedRevision: 3, compactedRevision: 4 });
    expect(fromCompacted.summary()).toEqual(['put /a@4']);
    const cancelled = new EventRecorder();
    const watch = kv.watch({ key: '/', prefix: true, startRevision: 0 }, cancelled);
    await kv.update('/a', bytes('4'), 4);
    watch.cancel();
    await kv.update('/a', bytes('5'), 5);
    expect(cancelled.summary()).toEqual(['put /a@5']);
    expect(compacted.events).toEqual([]);
  });

  it('sends periodic progress only to caught-up progressNotify watches, and on request to all', async () => {
    const notified = new EventRecorder();
    const quiet = new EventRecorder();
    kv.watch({ key: '/p/', prefix: true, startRevision: 0, progressNotify: true }, notified);
    kv.watch({ key: '/p/', prefix: true, startRevision: 0 }, quiet);
    await kv.create('/other', bytes('1'));
    await expect.poll(() => notified.progress.at(-1), { interval: 10 }).toBe(2);
    expect(quiet.progress).toEqual([]);
    await kv.create('/other2', bytes('1'));
    await kv.requestProgress();
    expect(notified.progress.at(-1)).toBe(3);
    expect(quiet.progress).toEqual([3]);
    expect(notified.events).toEqual([]);
  });

  it('sends a progress request for a key only to the watches that can see keys under it', async () => {
    const configmaps = new EventRecorder();
    const leases = new EventRecorder();
    const everything = new EventRecorder();
    const oneConfigMap = new EventRecorder();
    kv.watch({ key: '/registry/configmaps/', prefix: true, startRevision: 0 }, configmaps);
    kv.watch({ key: '/registry/leases/', prefix: true, startRevision: 0 }, leases);
    kv.watch({ key: '/registry/', prefix: true, startRevision: 0 }, everything);
    kv.watch({ key: '/registry/configmaps/default/one', prefix: false, startRevision: 0 }, oneConfigMap);
    await kv.create('/registry/leases/l', bytes('1'));
    await kv.requestProgress('/registry/configmaps');
    expect(configmaps.progress).toEqual([2]);
    expect(everything.progress).toEqual([2]);
    expect(oneConfigMap.progress).toEqual([2]);
    expect(leases.progress).toEqual([]);
    await kv.requestProgress();
    expect(leases.progress).toEqual([2]);
  });

  it('never lets a progress notification overtake events', async () => {
    const recorder = new EventRecorder();
    const order: string[] = [];
    kv.watch(
      { key: '/', prefix: true, startRevision: 0, progressNotify: true },
      {
        onEvents: (events) => order.push(...events.map((event) => `event ${event.entry.modRevision}`)),
        onProgress: (revision) => order.push(`progress ${revision}`),
        onError: (error) => recorder.onError(error),
      },
    );
    const writes = Array.from({ length: 10 }, (_, index) => kv.create(`/k${index}`, bytes('v')));
    await kv.requestProgress();
    await Promise.all(writes);
    await kv.requestProgress();
    const lastProgress = order.lastIndexOf('progress 11');
    expect(lastProgress).toBeGreaterThan(order.indexOf('event 11'));
    for (const [index, item] of order.entries()) {
      if (!item.startsWith('progress')) continue;
      const revision = Number(item.split(' ')[1]);
      for (let expected = 2; expected <= revision; expected++)
        expect(order.slice(0, index)).toContain(`event ${expected}`);
    }
  });

  it('ends a watch whose listener throws, without disturbing the others', async () => {
    const healthy = new EventRecorder();
    const errors: Error[] = [];
    kv.watch(
      { key: '/', prefix: true, startRevision: 0 },
      {
        onEvents: () => {
          throw new Error('listener broke');
        },
        onError: (error) => errors.push(error),
      },
    );
    kv.watch({ key: '/', prefix: true, startRevision: 0 }, healthy);
    await kv.create('/a', bytes('1'));
    await kv.create('/b', bytes('1'));
    expect(errors.map((error) => error.message)).toEqual(['listener broke']);
    expect(healthy.summary()).toEqual(['put /a@2', 'put /b@3']);
  });

  it('ends every watch with an error on close', async () => {
    const recorder = new EventRecorder();
    kv.watch({ key: '/', prefix: true, startRevision: 0 }, recorder);
    await Promise.resolve();
    await kv.close();
    expect(recorder.errors[0]?.message).toMatch(/closed/);
    const late = new EventRecorder();
    kv.watch({ key: '/', prefix: true, startRevision: 0 }, late);
    await Promise.resolve();
    expect(late.errors).toHaveLength(1);
  });

  it('sends a progress requested during the replay after the replayed events', async () => {
    await kv.create('/a', bytes('1'));
    await kv.update('/a', bytes('2'), 2);
    const order: string[] = [];
    kv.watch(
      { key: '/', prefix: true, startRevision: 2 },
      {
        onEvents: (events) => order.push(...events.map((event) => `event ${event.entry.modRevision}`)),
        onProgress: (revision) => order.push(`progress ${revision}`),
        onError: () => {},
      },
    );
    const requested = kv.requestProgress(); // runs before the replay microtask
    await requested;
    await Promise.resolve();
    expect(order).toEqual(['event 2', 'event 3', 'progress 3']);
  });
});
