import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import type { ValueTransformer } from '../codec.js';
import type { ResponseMeta } from '../interfaces.js';
import { Store } from '../store.js';
import { storedEncodingOf } from '../stored-encoding.js';
import { EventReader, expectRejection, expectStorageError, revisionOf, testObject, type SuiteContext } from './conformance-helpers.js';

/** Reads values as they are but reports them stale, as a transformer does after key rotation. */
const alwaysStale: ValueTransformer = {
  fromStorage: (data) => ({ data, stale: true }),
  toStorage: (data) => data,
};

/**
 * An encryption-like transformer that counts its reads: it writes `<writer>:` then the bytes, and reads a
 * value stale when another prefix marks it, which `readsStale` also tells from the prefix alone.
 */
function prefixedTransformer(writer: 'old' | 'new'): { reads: { count: number }; transformer: ValueTransformer } {
  const reads = { count: 0 };
  const prefixOf = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, 4).toString('utf8');
  const transformer: ValueTransformer = {
    toStorage: (data) => Buffer.concat([Buffer.from(`${writer}:`), data]),
    fromStorage(data) {
      reads.count++;
      return { data: data.subarray(4), stale: prefixOf(data) !== `${writer}:` };
    },
    readsStale: (data) => prefixOf(data) !== `${writer}:`,
  };
  return { reads, transformer };
}

function counterOf(object: KubeObject): number {
  return Number((object.data as Record<string, string> | undefined)?.counter ?? '0');
}

/** guaranteedUpdate: retries, preconditions, no-op writes, stale values, create-on-update. */
export function describeUpdateConformance(context: SuiteContext): void {
  describe('guaranteedUpdate', () => {
    it('passes the current object and its revision to tryUpdate and stores the result', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const calls: Array<{ current: KubeObject; meta: ResponseMeta }> = [];
      const updated = await store.guaranteedUpdate(key, {
        tryUpdate: (current, meta) => {
          calls.push({ current: structuredClone(current), meta });
          current.data = { value: 'changed' };
          return current;
        },
      });
      expect(calls).toHaveLength(1);
      expect(calls[0]?.current).toEqual(created);
      expect(calls[0]?.meta.resourceVersion).toBe(revisionOf(created));
      expect(revisionOf(updated)).toBeGreaterThan(revisionOf(created));
      expect(updated.data).toEqual({ value: 'changed' });
      expect(await store.get(key)).toEqual(updated);
    });

    it('gives exactly N increments under N concurrent updates', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}counter`;
      await store.create(key, testObject('counter', { data: { counter: '0' } }));
      const concurrency = 20;
      await Promise.all(
        Array.from({ length: concurrency }, () =>
          store.guaranteedUpdate(key, {
            tryUpdate: async (current) => {
              await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
              return { ...current, data: { counter: String(counterOf(current) + 1) } };
            },
          }),
        ),
      );
      expect(counterOf((await store.get(key)) as KubeObject)).toBe(concurrency);
    });

    it('retries tryUpdate with the current object after a conflicting write', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      await store.create(key, testObject('a', { data: { counter: '0' } }));
      const seen: number[] = [];
      let interfered = false;
      const result = await store.guaranteedUpdate(key, {
        tryUpdate: async (current) => {
          seen.push(counterOf(current));
          if (!interfered) {
            interfered = true;
            await store.guaranteedUpdate(key, { tryUpdate: (inner) => ({ ...inner, data: { counter: '10' } }) });
          }
          return { ...current, data: { counter: String(counterOf(current) + 1) } };
        },
      });
      expect(seen).toEqual([0, 10]);
      expect(counterOf(result)).toBe(11);
      expect(counterOf((await store.get(key)) as KubeObject)).toBe(11);
    });

    it('checks uid and resourceVersion preconditions with the Kubernetes messages', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a', { uid: 'u1' }));
      let calls = 0;
      const tryUpdate = (current: KubeObject): KubeObject => {
        calls++;
        return { ...current, data: { value: `v${calls}` } };
      };
      const uidError = await expectStorageError(store.guaranteedUpdate(key, { tryUpdate, preconditions: { uid: 'u2' } }), 'InvalidObject');
      expect(uidError.additionalMessage).toBe('Precondition failed: UID in precondition: u2, UID in object meta: u1');
      expect(uidError.key).toBe(key);
      const rvError = await expectStorageError(
        store.guaranteedUpdate(key, { tryUpdate, preconditions: { resourceVersion: '1' } }),
        'InvalidObject',
      );
      expect(rvError.additionalMessage).toBe(
        `Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${created.metadata.resourceVersion}`,
      );
      expect(calls).toBe(0);
      const updated = await store.guaranteedUpdate(key, {
        tryUpdate,
        preconditions: { uid: 'u1', resourceVersion: created.metadata.resourceVersion as string },
      });
      expect(updated.data).toEqual({ value: 'v1' });
    });

    it('re-reads when a stale cachedExistingObject fails preconditions or tryUpdate', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const second = await store.guaranteedUpdate(key, { tryUpdate: (current) => ({ ...current, data: { value: 'second' } }) });
      const seen: string[] = [];
      const third = await store.guaranteedUpdate(key, {
        cachedExistingObject: created,
        preconditions: { resourceVersion: second.metadata.resourceVersion as string },
        tryUpdate: (current) => {
          seen.push(current.metadata.resourceVersion as string);
          return { ...current, data: { value: 'third' } };
        },
      });
      expect(seen).toEqual([second.metadata.resourceVersion]);
      expect(third.data).toEqual({ value: 'third' });

      const attempts: string[] = [];
      const fourth = await store.guaranteedUpdate(key, {
        cachedExistingObject: created,
        tryUpdate: (current) => {
          attempts.push(current.metadata.resourceVersion as string);
          if (current.metadata.resourceVersion !== third.metadata.resourceVersion) throw new Error('stale');
          return { ...current, data: { value: 'fourth' } };
        },
      });
      expect(attempts).toEqual([created.metadata.resourceVersion, third.metadata.resourceVersion]);
      expect(fourth.data).toEqual({ value: 'fourth' });
    });

    it('propagates a tryUpdate error on current state and writes nothing', async () => {
      const { store, kv } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const before = await kv.currentRevision();
      const failure = new Error('no thanks');
      expect(await expectRejection(store.guaranteedUpdate(key, { tryUpdate: () => Promise.reject(failure) }))).toBe(failure);
      expect(await kv.currentRevision()).toBe(before);
      expect(await store.get(key)).toEqual(created);
    });

    it('skips the write and keeps the resourceVersion when nothing changed', async () => {
      const { store, kv } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const before = await kv.currentRevision();
      const same = await store.guaranteedUpdate(key, { tryUpdate: (current) => current });
      expect(same).toEqual(created);
      // Also when the update function returns a fresh copy with a different resourceVersion.
      const copy = await store.guaranteedUpdate(key, {
        tryUpdate: (current) => ({ ...structuredClone(current), metadata: { ...current.metadata, resourceVersion: '1' } }),
      });
      expect(copy.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      expect(await kv.currentRevision()).toBe(before);
      // A stale cached copy is re-read before a no-op is trusted.
      const updated = await store.guaranteedUpdate(key, { tryUpdate: (current) => ({ ...current, data: { value: 'x' } }) });
      const noop = await store.guaranteedUpdate(key, {
        cachedExistingObject: created,
        tryUpdate: (current) => current,
      });
      expect(noop).toEqual(updated);
    });

    it('writes an unchanged object when the stored value is stale', async () => {
      const { store, kv } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const staleStore = new Store({ kv, transformer: alwaysStale });
      const rewritten = await staleStore.guaranteedUpdate(key, { tryUpdate: (current) => current });
      expect(revisionOf(rewritten)).toBeGreaterThan(revisionOf(created));
      expect(rewritten.data).toEqual(created.data);
      expect(await store.get(key)).toEqual(rewritten);
    });

    it('keeps the JSON it wrote on an updated object for the response (storedEncodingOf), not on a no-op', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      await store.create(key, testObject('a'));
      const updated = await store.guaranteedUpdate(key, {
        tryUpdate: (current) => ({ ...current, data: { ...(current.data as Record<string, string>), extra: 'é"\\' } }),
      });
      const stored = storedEncodingOf(updated);
      expect(stored).toBeDefined();
      const { resourceVersion, ...metadata } = updated.metadata;
      expect(resourceVersion).toBeDefined();
      expect(Buffer.from(stored ?? []).toString('utf8')).toBe(JSON.stringify({ ...updated, metadata }));
      const noOp = await store.guaranteedUpdate(key, { tryUpdate: (current) => current });
      expect(storedEncodingOf(noOp)).toBeUndefined();
    });

    it('neither modifies nor returns a cachedExistingObject (a cache hands over the object it holds)', async () => {
      const { store, kv } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const deepFreeze = <T>(value: T): T => {
        if (typeof value === 'object' && value !== null) Object.values(value).forEach(deepFreeze);
        return Object.freeze(value);
      };
      const changed = (current: KubeObject) => {
        current.metadata.labels = { touched: 'yes' };
        return current;
      };
      for (const writer of [store, new Store({ kv, transformer: alwaysStale })]) {
        const cached = deepFreeze(structuredClone(await store.get(key))) as KubeObject;
        const snapshot = structuredClone(cached);
        const noOp = await writer.guaranteedUpdate(key, { cachedExistingObject: cached, tryUpdate: (current) => current });
        const updated = await writer.guaranteedUpdate(key, { cachedExistingObject: cached, tryUpdate: changed });
        expect(noOp).not.toBe(cached);
        expect(updated).not.toBe(cached);
        expect(updated.metadata.labels).toEqual({ touched: 'yes' });
        expect(cached).toEqual(snapshot);
      }
      expect(revisionOf(created)).toBeGreaterThan(0);
    });

    it('rewrites a stale stored value from a current cachedExistingObject with one tryUpdate call', async () => {
      const { store, kv } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const staleStore = new Store({ kv, transformer: alwaysStale });
      let calls = 0;
      const rewritten = await staleStore.guaranteedUpdate(key, {
        cachedExistingObject: created,
        tryUpdate: (current) => {
          calls++;
          return current;
        },
      });
      // The cached copy was re-read (same revision, same bytes) and the update computed from it written.
      expect(calls).toBe(1);
      expect(revisionOf(rewritten)).toBeGreaterThan(revisionOf(created));
      expect(rewritten.data).toEqual(created.data);
      expect(await store.get(key)).toEqual(rewritten);
    });

    it('rewrites a cached object whose value an old key sealed without reading it, and watches its own write without reading it', async () => {
      const { kv } = context.target;
      const key = `${context.prefix()}a`;
      const created = await new Store({ kv, transformer: prefixedTransformer('old').transformer }).create(key, testObject('a'));
      const { reads, transformer } = prefixedTransformer('new');
      const store = new Store({ kv, transformer });
      const reader = new EventReader(await store.watch(key, { resourceVersion: created.metadata.resourceVersion ?? '' }));
      try {
        const rewritten = await store.guaranteedUpdate(key, { cachedExistingObject: created, tryUpdate: (current) => current });
        expect(revisionOf(rewritten)).toBeGreaterThan(revisionOf(created));
        expect(Buffer.from((await kv.get(key)).entry?.value ?? []).subarray(0, 4).toString()).toBe('new:');
        const modified = await reader.next();
        expect(modified.type).toBe('MODIFIED');
        expect(modified.object).toEqual(rewritten);
        expect(reads.count).toBe(0);
        // The previous state is decoded when asked for.
        expect(modified.previousObject).toEqual(created);
        expect(reads.count).toBe(1);
        // Now current: a second no-op reads the stored value to compare it, and writes nothing.
        const again = await store.guaranteedUpdate(key, { cachedExistingObject: rewritten, tryUpdate: (current) => current });
        expect(again.metadata.resourceVersion).toBe(rewritten.metadata.resourceVersion);
        await reader.expectQuiet(100);
      } finally {
        reader.stop();
      }
    });

    it('rewrites an object read from an old-key value with one conditional write and no read, and skips it once the key moved on', async () => {
      const { kv } = context.target;
      const key = `${context.prefix()}a`;
      const old = new Store({ kv, transformer: prefixedTransformer('old').transformer });
      await old.create(key, testObject('a'));
      let gets = 0;
      const countingKv = new Proxy(kv, {
        get: (target, property, receiver) => {
          const value: unknown = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (property === 'get') gets++;
            return (value as (...args: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const store = new Store({ kv: countingKv, transformer: prefixedTransformer('new').transformer });
      const read = (await store.get(key)) as KubeObject;
      const [first, second] = [structuredClone(read), read];
      gets = 0;
      const rewritten = await store.guaranteedUpdate(key, { cachedExistingObject: second, tryUpdate: (current) => current });
      expect(gets).toBe(0);
      expect(revisionOf(rewritten)).toBeGreaterThan(revisionOf(read));
      expect(Buffer.from((await kv.get(key)).entry?.value ?? []).subarray(0, 4).toString()).toBe('new:');
      // A copy not known to be stale, now outdated: the conditional write fails, the current value is a no-op.
      const again = await store.guaranteedUpdate(key, { cachedExistingObject: first, tryUpdate: (current) => current });
      expect(again.metadata.resourceVersion).toBe(rewritten.metadata.resourceVersion);
    });

    it('fails with KeyNotFound for a missing key, or creates it with ignoreNotFound', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      await expectStorageError(store.guaranteedUpdate(key, { tryUpdate: (current) => current }), 'KeyNotFound');
      const inputs: KubeObject[] = [];
      const metas: ResponseMeta[] = [];
      const created = await store.guaranteedUpdate(key, {
        ignoreNotFound: true,
        tryUpdate: (current, meta) => {
          inputs.push(structuredClone(current));
          metas.push(meta);
          return testObject('a', { data: { value: 'created' } });
        },
      });
      expect(inputs).toEqual([{ metadata: {} }]);
      expect(metas[0]?.resourceVersion).toBe(0);
      expect(created.data).toEqual({ value: 'created' });
      expect(revisionOf(created)).toBeGreaterThan(0);
      expect(await store.get(key)).toEqual(created);
    });

    it('accepts { object, ttlSeconds } from tryUpdate', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      await store.create(key, testObject('a'));
      const updated = await store.guaranteedUpdate(key, {
        tryUpdate: (current) => ({ object: { ...current, data: { value: 'ttl' } }, ttlSeconds: 300 }),
      });
      expect(updated.data).toEqual({ value: 'ttl' });
      const metas: ResponseMeta[] = [];
      await store.guaranteedUpdate(key, {
        tryUpdate: (current, meta) => {
          metas.push(meta);
          return current;
        },
      });
      // tryUpdate may first see a cached (stale) copy; the call that decides sees the stored object.
      const last = metas[metas.length - 1];
      expect(last?.resourceVersion).toBe(revisionOf(updated));
      if (last?.ttlSeconds !== undefined) {
        expect(last.ttlSeconds).toBeGreaterThan(0);
        expect(last.ttlSeconds).toBeLessThanOrEqual(300);
      }
    });
  });
}
