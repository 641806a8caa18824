import { FutureRevisionError, RevisionCompactedError, StorageError, type KVEvent } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3Backend } from './etcd3-backend.js';
import { startEtcd, type EtcdInstance } from './testing/index.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const decode = (value: Uint8Array | undefined): string | undefined =>
  value === undefined ? undefined : new TextDecoder().decode(value);

let etcd: EtcdInstance;
let backend: Etcd3Backend;
let counter = 0;
/** A fresh key prefix per test. */
const fresh = (): string => `/kv-test-${++counter}/`;

beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 500 });
  backend = await Etcd3Backend.connect({ endpoints: [etcd.endpoint] });
});
afterAll(async () => {
  await backend?.close();
  await etcd?.stop();
});

describe('Etcd3Backend KV', () => {
  it('reports its name and the server version, without RequestProgress on etcd 3.4.23', () => {
    expect(backend.name).toBe('etcd3');
    expect(backend.serverVersion).toMatch(/^3\.\d+\.\d+/);
    if (backend.serverVersion === '3.4.23') {
      expect(backend.requestProgress).toBeUndefined();
      expect('requestProgress' in backend).toBe(false);
    }
  });

  it('fails to connect to a closed port with a clear message', async () => {
    await expect(
      Etcd3Backend.connect({ endpoints: ['http://127.0.0.1:1'], dialTimeoutMs: 500 }),
    ).rejects.toThrow('cannot connect to etcd at http://127.0.0.1:1');
  });

  it('connects when one of several endpoints is down', async () => {
    const other = await Etcd3Backend.connect({ endpoints: ['http://127.0.0.1:1', etcd.endpoint] });
    try {
      expect(other.serverVersion).toBe(backend.serverVersion);
    } finally {
      await other.close();
    }
  });

  it('creates once; a second create conflicts and returns the current entry', async () => {
    const key = `${fresh()}a`;
    const created = await backend.create(key, text('one'));
    expect(created.succeeded).toBe(true);
    const again = await backend.create(key, text('two'));
    expect(again).toMatchObject({ succeeded: false, reason: 'conflict', revision: created.revision });
    if (again.succeeded) throw new Error('unreachable');
    expect(decode(again.current?.value)).toBe('one');
    expect(again.current).toMatchObject({
      key,
      createRevision: created.revision,
      modRevision: created.revision,
    });
    const read = await backend.get(key);
    expect(read.revision).toBeGreaterThanOrEqual(created.revision);
    expect(decode(read.entry?.value)).toBe('one');
    expect(read.entry?.ttlSeconds).toBeUndefined();
  });

  it('updates and deletes only at the expected modRevision', async () => {
    const key = `${fresh()}a`;
    const created = await backend.create(key, text('v1'));
    if (!created.succeeded) throw new Error('create failed');
    const updated = await backend.update(key, text('v2'), created.revision);
    expect(updated).toMatchObject({ succeeded: true, revision: created.revision + 1 });
    const stale = await backend.update(key, text('v3'), created.revision);
    expect(stale).toMatchObject({ succeeded: false, reason: 'conflict' });
    if (stale.succeeded) throw new Error('unreachable');
    expect(stale.current?.modRevision).toBe(created.revision + 1);
    expect(decode(stale.current?.value)).toBe('v2');

    const staleDelete = await backend.delete(key, created.revision);
    expect(staleDelete).toMatchObject({ succeeded: false, reason: 'conflict' });
    const deleted = await backend.delete(key, created.revision + 1);
    expect(deleted).toMatchObject({ succeeded: true, revision: created.revision + 2 });
    if (!deleted.succeeded) throw new Error('unreachable');
    expect(decode(deleted.previous?.value)).toBe('v2');
    expect(deleted.previous?.modRevision).toBe(created.revision + 1);
    expect((await backend.get(key)).entry).toBeUndefined();

    const gone = await backend.update(key, text('v4'), created.revision + 1);
    expect(gone).toMatchObject({ succeeded: false, reason: 'conflict' });
    if (gone.succeeded) throw new Error('unreachable');
    expect(gone.current).toBeUndefined();
  });

  it('checks a write condition atomically with the write', async () => {
    const prefix = fresh();
    const guard = `${prefix}guard`;
    await backend.create(guard, text('open'));
    const key = `${prefix}a`;
    const refused = await backend.create(key, text('x'), { condition: { key: guard, value: 'closed' } });
    expect(refused).toMatchObject({ succeeded: false, reason: 'condition' });
    expect((await backend.get(key)).entry).toBeUndefined();
    const missingGuard = await backend.create(key, text('x'), {
      condition: { key: `${prefix}nothing`, value: '' },
    });
    expect(missingGuard).toMatchObject({ succeeded: false, reason: 'condition' });
    const allowed = await backend.create(key, text('x'), { condition: { key: guard, value: 'open' } });
    expect(allowed.succeeded).toBe(true);
    if (!allowed.succeeded) throw new Error('unreachable');
    const conflict = await backend.update(key, text('y'), allowed.revision - 1, {
      condition: { key: guard, value: 'open' },
    });
    expect(conflict).toMatchObject({ succeeded: false, reason: 'conflict' });
    const refusedUpdate = await backend.update(key, text('y'), allowed.revision, {
      condition: { key: guard, value: 'no' },
    });
    expect(refusedUpdate).toMatchObject({ succeeded: false, reason: 'condition' });
    const refusedDelete = await backend.delete(key, allowed.revision, {
      condition: { key: guard, value: 'no' },
    });
    expect(refusedDelete).toMatchObject({ succeeded: false, reason: 'condition' });
    const deleted = await backend.delete(key, allowed.revision, { condition: { key: guard, value: 'open' } });
    expect(deleted.succeeded).toBe(true);
  });

  it('ranges a prefix with limit, startKey, count and a past revision', async () => {
    const prefix = fresh();
    const revisions: number[] = [];
    for (let index = 0; index < 5; index++) {
      const result = await backend.create(`${prefix}k${index}`, text(`v${index}`));
      revisions.push(result.revision);
    }
    await backend.create(`${fresh()}outside`, text('no'));
    const all = await backend.range({ key: prefix, prefix: true });
    expect(all.entries.map((entry) => entry.key)).toEqual(
      [0, 1, 2, 3, 4].map((index) => `${prefix}k${index}`),
    );
    expect(all).toMatchObject({ more: false, count: 5 });

    const page1 = await backend.range({ key: prefix, prefix: true, limit: 2 });
    expect(page1.entries.map((entry) => entry.key)).toEqual([`${prefix}k0`, `${prefix}k1`]);
    expect(page1).toMatchObject({ more: true, count: 5 });
    const snapshot = page1.revision;
    await backend.delete(`${prefix}k3`, revisions[3]!);
    const page2 = await backend.range({
      key: prefix,
      prefix: true,
      limit: 2,
      startKey: `${prefix}k1\u0000`,
      revision: snapshot,
    });
    expect(page2.entries.map((entry) => entry.key)).toEqual([`${prefix}k2`, `${prefix}k3`]);
    expect(page2).toMatchObject({ more: true, count: 3, revision: snapshot });
    const page3 = await backend.range({
      key: prefix,
      prefix: true,
      limit: 2,
      startKey: `${prefix}k3\u0000`,
      revision: snapshot,
    });
    expect(page3.entries.map((entry) => entry.key)).toEqual([`${prefix}k4`]);
    expect(page3.more).toBe(false);

    const counted = await backend.range({ key: prefix, prefix: true, countOnly: true });
    expect(counted).toMatchObject({ entries: [], count: 4, more: false });
    const past = await backend.range({ key: prefix, prefix: true, revision: revisions[1]! });
    expect(past.entries.map((entry) => decode(entry.value))).toEqual(['v0', 'v1']);
    const exact = await backend.range({ key: `${prefix}k2`, prefix: false });
    expect(exact.entries.map((entry) => entry.key)).toEqual([`${prefix}k2`]);
    const pastGet = await backend.get(`${prefix}k3`, { revision: revisions[4]! });
    expect(decode(pastGet.entry?.value)).toBe('v3');
    expect(pastGet.revision).toBe(revisions[4]);
  });

  it('maps compacted and future revisions to RevisionCompactedError and FutureRevisionError', async () => {
    const key = `${fresh()}a`;
    const first = await backend.create(key, text('1'));
    if (!first.succeeded) throw new Error('create failed');
    const second = await backend.update(key, text('2'), first.revision);
    if (!second.succeeded) throw new Error('update failed');
    await backend.compact(second.revision);
    expect(await backend.compactedRevision()).toBeGreaterThanOrEqual(second.revision);
    await backend.compact(first.revision); // already compacted: tolerated

    const old = backend.get(key, { revision: first.revision });
    await expect(old).rejects.toBeInstanceOf(RevisionCompactedError);
    await expect(old).rejects.toMatchObject({
      requestedRevision: first.revision,
      compactedRevision: second.revision,
    });
    await expect(backend.range({ key, prefix: true, revision: first.revision })).rejects.toBeInstanceOf(
      RevisionCompactedError,
    );
    const current = await backend.currentRevision();
    const future = backend.range({ key, prefix: false, revision: current + 100 });
    await expect(future).rejects.toBeInstanceOf(FutureRevisionError);
    await expect(future).rejects.toMatchObject({
      requestedRevision: current + 100,
      currentRevision: current,
    });
    await expect(backend.compact(current + 100)).rejects.toBeInstanceOf(FutureRevisionError);
    expect(decode((await backend.get(key)).entry?.value)).toBe('2');
  });

  it('expires TTL keys with a delete event and reports the TTL left', async () => {
    const prefix = fresh();
    const start = await backend.currentRevision();
    const created = await backend.create(`${prefix}ttl`, text('short'), { ttlSeconds: 1 });
    expect(created.succeeded).toBe(true);
    const read = await backend.get(`${prefix}ttl`);
    expect(read.entry?.ttlSeconds).toBeGreaterThan(0);
    expect(read.entry?.ttlSeconds).toBeLessThanOrEqual(2);
    const deleted = await new Promise<KVEvent>((resolve, reject) => {
      const watch = backend.watch(
        { key: prefix, prefix: true, startRevision: start + 1 },
        {
          onEvents: (events) => {
            const event = events.find((candidate) => candidate.type === 'delete');
            if (event) {
              watch.cancel();
              resolve(event);
            }
          },
          onError: reject,
        },
      );
    });
    expect(deleted.entry.key).toBe(`${prefix}ttl`);
    expect(decode(deleted.previous?.value)).toBe('short');
    expect((await backend.get(`${prefix}ttl`)).entry).toBeUndefined();
  }, 15_000);

  it('maps etcd rejecting an oversized request (over --max-request-bytes) to RequestTooLarge', async () => {
    // 1.8 MiB: etcd's own limit ("request is too large"); 2.5 MiB: its gRPC server's limit.
    for (const size of [1.8 * 1024 * 1024, 2.5 * 1024 * 1024]) {
      const error = await backend
        .create(`${fresh()}big`, new Uint8Array(size))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StorageError);
      expect(StorageError.isInstance(error) && error.code).toBe('RequestTooLarge');
    }
  });

  it('reads and writes under a key prefix', async () => {
    const prefixed = await Etcd3Backend.connect({ endpoints: [etcd.endpoint], prefix: '/tenant-a' });
    try {
      const result = await prefixed.create('/x/one', text('1'));
      expect(result.succeeded).toBe(true);
      expect(decode((await backend.get('/tenant-a/x/one')).entry?.value)).toBe('1');
      const listed = await prefixed.range({ key: '/x/', prefix: true });
      expect(listed.entries.map((entry) => entry.key)).toEqual(['/x/one']);
    } finally {
      await prefixed.close();
    }
  });
});
