import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  EventReader,
  expectRejection,
  expectStatusError,
  expectStorageError,
  revisionOf,
  testObject,
  type SuiteContext,
} from './conformance-helpers.js';

/** Create, get, count, delete, corrupt values, size limit and TTL. */
export function describeCrudConformance(context: SuiteContext): void {
  describe('create and get', () => {
    it('creates an object, returning it with its resourceVersion, and reads it back', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const input = testObject('a', { labels: { app: 'x' } });
      const created = await store.create(key, input);
      const revision = revisionOf(created);
      expect(revision).toBeGreaterThan(0);
      expect(created.metadata.name).toBe('a');
      expect(created.data).toEqual({ value: 'a' });
      expect(input.metadata.resourceVersion).toBeUndefined();
      const read = await store.get(key);
      expect(read).toEqual(created);
    });

    it('fails with KeyExists when the key exists', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const first = await store.create(key, testObject('a'));
      const error = await expectStorageError(store.create(key, testObject('a', { data: { other: '1' } })), 'KeyExists');
      expect(error.key).toBe(key);
      expect(await store.get(key)).toEqual(first);
    });

    it('rejects an object to be created that has a resourceVersion', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const object = testObject('a');
      object.metadata.resourceVersion = '5';
      const error = await expectRejection(store.create(key, object));
      expect(String((error as Error).message)).toContain('resourceVersion should not be set on objects to be created');
      expect(await store.get(key, { ignoreNotFound: true })).toBeUndefined();
    });

    it('fails with KeyNotFound for a missing key, or gives undefined with ignoreNotFound', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}missing`;
      const error = await expectStorageError(store.get(key), 'KeyNotFound');
      expect(error.key).toBe(key);
      expect(await store.get(key, { ignoreNotFound: true })).toBeUndefined();
    });

    it('honours resourceVersion "", "0", N and rejects a too large N with 504 ResourceVersionTooLarge', async () => {
      const { store, kv } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const updated = await store.guaranteedUpdate(key, {
        tryUpdate: (current) => ({ ...current, data: { value: 'changed' } }),
      });
      for (const resourceVersion of ['', '0', created.metadata.resourceVersion as string, updated.metadata.resourceVersion as string]) {
        // A get with a resourceVersion is "not older than": it returns the latest state.
        expect(await store.get(key, { resourceVersion })).toEqual(updated);
      }
      const current = await kv.currentRevision();
      const tooLarge = current + 1000;
      const error = await expectStatusError(store.get(key, { resourceVersion: String(tooLarge) }), 504);
      expect(error.reason).toBe('Timeout');
      expect(error.status.details?.causes?.[0]?.reason).toBe('ResourceVersionTooLarge');
      expect(error.message).toMatch(new RegExp(`^Timeout: Too large resource version: ${tooLarge}, current: \\d+$`));
      await expectStatusError(store.get(`${key}-missing`, { resourceVersion: String(tooLarge), ignoreNotFound: true }), 504);
    });
  });

  describe('count', () => {
    it('counts the objects below a prefix only', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      await store.create(`${prefix}pods/a`, testObject('a'));
      await store.create(`${prefix}pods/b`, testObject('b'));
      await store.create(`${prefix}pods/ns/c`, testObject('c'));
      await store.create(`${prefix}podsx/d`, testObject('d'));
      expect(await store.count(`${prefix}pods`)).toBe(3);
      expect(await store.count(`${prefix}pods/`)).toBe(3);
      expect(await store.count(`${prefix}none`)).toBe(0);
    });
  });

  describe('delete', () => {
    it('returns the last state with the deletion resourceVersion', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const deleted = await store.delete(key);
      expect(deleted.metadata.name).toBe('a');
      expect(deleted.data).toEqual(created.data);
      expect(revisionOf(deleted)).toBeGreaterThan(revisionOf(created));
      await expectStorageError(store.get(key), 'KeyNotFound');
      await expectStorageError(store.delete(key), 'KeyNotFound');
    });

    it('checks uid and resourceVersion preconditions with the Kubernetes messages', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a', { uid: 'u1' }));
      const uidError = await expectStorageError(store.delete(key, { preconditions: { uid: 'u2' } }), 'InvalidObject');
      expect(uidError.additionalMessage).toBe('Precondition failed: UID in precondition: u2, UID in object meta: u1');
      expect(uidError.message).toBe(
        `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: u2, UID in object meta: u1`,
      );
      const rvError = await expectStorageError(store.delete(key, { preconditions: { resourceVersion: '1' } }), 'InvalidObject');
      expect(rvError.additionalMessage).toBe(
        `Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${created.metadata.resourceVersion}`,
      );
      expect(await store.get(key)).toEqual(created);
      const deleted = await store.delete(key, {
        preconditions: { uid: 'u1', resourceVersion: created.metadata.resourceVersion as string },
      });
      expect(deleted.metadata.uid).toBe('u1');
      await expectStorageError(store.get(key), 'KeyNotFound');
    });

    it('runs validateDeletion on the current object and aborts when it throws', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const seen: KubeObject[] = [];
      const refusal = new Error('refused');
      const error = await expectRejection(
        store.delete(key, {
          validateDeletion: (current) => {
            seen.push(current);
            throw refusal;
          },
        }),
      );
      expect(error).toBe(refusal);
      expect(seen).toEqual([created]);
      expect(await store.get(key)).toEqual(created);
      await store.delete(key, { validateDeletion: () => undefined });
      await expectStorageError(store.get(key), 'KeyNotFound');
    });

    it('retries with the current object when cachedExistingObject is stale', async () => {
      const { store } = context.target;
      const key = `${context.prefix()}a`;
      const created = await store.create(key, testObject('a'));
      const updated = await store.guaranteedUpdate(key, { tryUpdate: (current) => ({ ...current, data: { value: 'new' } }) });
      const validated: KubeObject[] = [];
      const deleted = await store.delete(key, {
        cachedExistingObject: created,
        validateDeletion: (current) => {
          validated.push(current);
        },
      });
      expect(deleted.data).toEqual({ value: 'new' });
      expect(revisionOf(deleted)).toBeGreaterThan(revisionOf(updated));
      expect(validated[validated.length - 1]).toEqual(updated);
    });
  });

  describe('corrupt values and size limits', () => {
    it('reports undecodable stored bytes as CorruptObject naming the key, on get and on list', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      const key = `${prefix}broken`;
      await store.create(`${prefix}good`, testObject('good'));
      const written = await kv.create(key, Buffer.from('{not json'));
      expect(written.succeeded).toBe(true);
      const getError = await expectStorageError(store.get(key), 'CorruptObject');
      expect(getError.key).toBe(key);
      expect(getError.message).toContain(key);
      const listError = await expectStorageError(store.getList(prefix, { recursive: true }), 'CorruptObject');
      expect(listError.key).toBe(key);
    });

    it('refuses values over 1.5 MiB with RequestTooLarge and writes nothing', async () => {
      const { store, kv } = context.target;
      const key = `${context.prefix()}big`;
      const big = testObject('big', { data: { value: 'x'.repeat(1572864) } });
      const before = await kv.currentRevision();
      await expectStorageError(store.create(key, big), 'RequestTooLarge');
      expect(await kv.currentRevision()).toBe(before);
      expect((await kv.get(key)).entry).toBeUndefined();
      const small = await store.create(key, testObject('big'));
      await expectStorageError(store.guaranteedUpdate(key, { tryUpdate: () => big }), 'RequestTooLarge');
      expect(await store.get(key)).toEqual(small);
    });
  });

  describe('ttl', () => {
    it('deletes an object created with a TTL, with a DELETED event', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const key = `${prefix}short-lived`;
      const created = await store.create(key, testObject('short-lived'), { ttlSeconds: 1 });
      const reader = new EventReader(
        await store.watch(prefix, { recursive: true, resourceVersion: created.metadata.resourceVersion as string }),
      );
      try {
        const event = await reader.next({ timeoutMs: 8000 });
        expect(event.type).toBe('DELETED');
        expect((event.object as KubeObject).metadata.name).toBe('short-lived');
        expect(revisionOf(event.object)).toBeGreaterThan(revisionOf(created));
        expect(await store.get(key, { ignoreNotFound: true })).toBeUndefined();
      } finally {
        reader.stop();
      }
    });
  });
}
