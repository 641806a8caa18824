import { StatusError, type KubeObject, type Status } from '@kapi/apimachinery';
import { Store, StorageError, type KVWriteOptions, type KVWriteResult, type ValueTransformer } from '@kapi/storage';
import { EventReader } from '@kapi/storage/testing';
import { describe, expect, it } from 'vitest';
import { MemoryBackend } from './memory-backend.js';

const object = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name } });

describe('Store over MemoryBackend', () => {
  it('honours a custom maxObjectSize measured after the transformer', async () => {
    const kv = new MemoryBackend();
    const padding: ValueTransformer = {
      toStorage: (data) => Buffer.concat([Buffer.alloc(100), data]),
      fromStorage: (data) => ({ data: data.subarray(100), stale: false }),
    };
    const store = new Store({ kv, transformer: padding, maxObjectSize: 150 });
    const error = await store.create('/k/a', object('a')).catch((caught: unknown) => caught);
    expect(StorageError.isInstance(error) && error.code).toBe('RequestTooLarge');
    expect((error as StorageError).additionalMessage).toMatch(/^request is too large: \d+ bytes, limit is 150$/);
    expect(await kv.currentRevision()).toBe(1);
    const roomy = new Store({ kv, transformer: padding, maxObjectSize: 1000 });
    expect((await roomy.create('/k/a', object('a'))).data).toEqual({ v: 'a' });
    await kv.close();
  });

  it('reports a failing transformer as CorruptObject naming the key', async () => {
    const kv = new MemoryBackend();
    await new Store({ kv }).create('/k/a', object('a'));
    const broken: ValueTransformer = {
      toStorage: (data) => data,
      fromStorage: () => {
        throw new Error('bad key');
      },
    };
    const error = await new Store({ kv, transformer: broken }).get('/k/a').catch((caught: unknown) => caught);
    expect(StorageError.isInstance(error) && error.code).toBe('CorruptObject');
    expect((error as StorageError).additionalMessage).toBe('unable to transform key "/k/a": bad key');
    await kv.close();
  });

  it('rejects a malformed resourceVersion with 400', async () => {
    const store = new Store({ kv: new MemoryBackend() });
    const error = await store.get('/k/a', { resourceVersion: 'abc' }).catch((caught: unknown) => caught);
    expect(StatusError.isInstance(error) && error.code).toBe(400);
    expect((error as StatusError).message).toBe(
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    );
    const listError = await store.getList('/k', { recursive: true, resourceVersion: '-1' }).catch((caught: unknown) => caught);
    expect(StatusError.isInstance(listError) && listError.code).toBe(400);
  });

  it('closes the backend only when it owns it', async () => {
    const shared = new MemoryBackend();
    await new Store({ kv: shared }).close();
    expect(await shared.currentRevision()).toBe(1);
    await new Store({ kv: shared, ownsBackend: true }).close();
    await expect(shared.currentRevision()).rejects.toThrow('closed');
  });

  it('cancels the backend watch when the watch is stopped or its signal aborts', async () => {
    const kv = new MemoryBackend();
    const store = new Store({ kv });
    const stopped = await store.watch('/k', { recursive: true });
    const abort = new AbortController();
    await store.watch('/k', { recursive: true, resourceVersion: '1', signal: abort.signal });
    expect(kv.watchCount).toBe(2);
    stopped.stop();
    expect(kv.watchCount).toBe(1);
    abort.abort();
    expect(kv.watchCount).toBe(0);
    const preAborted = await store.watch('/k', { recursive: true, signal: abort.signal });
    await preAborted.done;
    expect(kv.watchCount).toBe(0);
    await kv.close();
  });

  it('ends watches with an ERROR event when the backend closes', async () => {
    const kv = new MemoryBackend();
    const store = new Store({ kv });
    const reader = new EventReader(await store.watch('/k', { recursive: true, resourceVersion: '1' }));
    await kv.close();
    const event = await reader.next();
    expect(event.type).toBe('ERROR');
    expect((event.object as Status).code).toBe(503);
    await reader.expectEnd(1000);
  });

  it('lets many stores share one backend and one revision sequence', async () => {
    const kv = new MemoryBackend();
    const pods = new Store({ kv });
    const secrets = new Store({ kv });
    const a = await pods.create('/registry/pods/a', object('a'));
    const b = await secrets.create('/registry/secrets/b', object('b'));
    expect(Number(b.metadata.resourceVersion)).toBe(Number(a.metadata.resourceVersion) + 1);
    expect(await pods.getCurrentResourceVersion()).toBe(3);
    await kv.close();
  });
  it('marks a rewrite of an unchanged stale value deferrable, and no other write', async () => {
    /** Records the options of each update. */
    class RecordingBackend extends MemoryBackend {
      readonly updates: Array<{ key: string; deferrable: boolean }> = [];
      override update(key: string, value: Uint8Array, expectedModRevision: number, options?: KVWriteOptions): Promise<KVWriteResult> {
        this.updates.push({ key, deferrable: options?.deferrable === true });
        return super.update(key, value, expectedModRevision, options);
      }
    }
    const prefixed = (write: string): ValueTransformer => ({
      toStorage: (data) => Buffer.concat([Buffer.from(write), data]),
      fromStorage: (data) => ({ data: data.subarray(4), stale: Buffer.from(data.subarray(0, 4)).toString() !== write }),
    });
    const kv = new RecordingBackend();
    const old = new Store({ kv, transformer: prefixed('old:') });
    for (const name of ['a', 'b', 'c', 'd']) await old.create(`/k/${name}`, object(name));
    const store = new Store({ kv, transformer: prefixed('new:') });

    await store.guaranteedUpdate('/k/a', { tryUpdate: (current) => current });
    await store.guaranteedUpdate('/k/b', { tryUpdate: (current) => ({ ...current, data: { v: 'changed' } }) });
    const cached = (await store.get('/k/c')) as KubeObject;
    await store.guaranteedUpdate('/k/c', { tryUpdate: (current) => current, cachedExistingObject: cached });
    const cachedD = (await store.get('/k/d')) as KubeObject;
    await store.guaranteedUpdate('/k/d', { tryUpdate: (current) => ({ ...current, data: { v: 'changed' } }), cachedExistingObject: cachedD });
    await store.guaranteedUpdate('/k/a', { tryUpdate: (current) => ({ ...current, data: { v: 'again' } }) });
    expect(kv.updates).toEqual([
      { key: '/k/a', deferrable: true },
      { key: '/k/b', deferrable: false },
      { key: '/k/c', deferrable: true },
      { key: '/k/d', deferrable: false },
      { key: '/k/a', deferrable: false },
    ]);
    expect((await store.get('/k/c'))?.data).toEqual({ v: 'c' });
    await kv.close();
  });

  it('lets other work run while it decodes a long LIST page (the event loop is not held for the whole page)', async () => {
    const kv = new MemoryBackend();
    const plain = new Store({ kv });
    for (let index = 0; index < 40; index++) await plain.create(`/k/o${index}`, object(`o${index}`));
    // Each read costs 0.5 ms of synchronous work, like decrypting and parsing a large object.
    const slowRead: ValueTransformer = {
      toStorage: (data) => data,
      fromStorage: (data) => {
        for (const until = performance.now() + 0.5; performance.now() < until; );
        return { data, stale: false };
      },
    };
    const store = new Store({ kv, transformer: slowRead });
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const page = await store.getList('/k', { recursive: true, predicate: { limit: 500 } });
    const turnsDuringList = turns;
    clearInterval(ticker);
    expect(page.items).toHaveLength(40);
    // ~20 ms of decoding in slices of ~2 ms: timers get turns in between.
    expect(turnsDuringList).toBeGreaterThanOrEqual(3);
    await kv.close();
  });
});
