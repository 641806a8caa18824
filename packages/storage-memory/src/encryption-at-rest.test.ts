import { randomBytes } from 'node:crypto';
import { Store, StorageError, aesCbcTransformer, aesGcmTransformer } from '@kapi/storage';
import { describe, expect, it } from 'vitest';
import { MemoryBackend } from './memory-backend.js';

const key = '/registry/secrets/default/s';
const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { password: 'hunter2' } };

for (const [mode, make] of [
  ['aesgcm', aesGcmTransformer],
  ['aescbc', aesCbcTransformer],
] as const) {
  describe(`Store with the ${mode} transformer`, () => {
    const oldKey = { name: 'old', secret: randomBytes(32) };
    const newKey = { name: 'new', secret: randomBytes(32) };

    it('encrypts at rest and rewrites values of a rotated-out key on an unchanged update', async () => {
      const kv = new MemoryBackend();
      const before = new Store({ kv, transformer: make({ keys: [oldKey] }) });
      const created = await before.create(key, secret);
      const raw = Buffer.from((await kv.get(key)).entry?.value ?? []);
      expect(raw.subarray(0, `k8s:enc:${mode}:v1:old:`.length).toString()).toBe(`k8s:enc:${mode}:v1:old:`);
      expect(raw.includes(Buffer.from('hunter2'))).toBe(false);

      // Without rotation an unchanged update is a no-op.
      expect(await before.guaranteedUpdate(key, { tryUpdate: (current) => current })).toEqual(created);
      expect(await kv.currentRevision()).toBe(Number(created.metadata.resourceVersion));

      const rotated = new Store({ kv, transformer: make({ keys: [newKey, oldKey] }) });
      expect(await rotated.get(key)).toEqual(created);
      const rewritten = await rotated.guaranteedUpdate(key, { tryUpdate: (current) => current });
      expect(Number(rewritten.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
      expect(rewritten.data).toEqual(secret.data);
      const rewrittenRaw = Buffer.from((await kv.get(key)).entry?.value ?? []);
      expect(rewrittenRaw.subarray(0, `k8s:enc:${mode}:v1:new:`.length).toString()).toBe(`k8s:enc:${mode}:v1:new:`);
      // Now fresh: the next unchanged update is a no-op again.
      expect(await rotated.guaranteedUpdate(key, { tryUpdate: (current) => current })).toEqual(rewritten);

      // A store that lacks the key reports CorruptObject naming the key.
      const stranger = new Store({ kv, transformer: make({ keys: [oldKey] }) });
      const error = await stranger.get(key).catch((caught: unknown) => caught);
      expect(StorageError.isInstance(error) && error.code).toBe('CorruptObject');
      expect((error as StorageError).key).toBe(key);
      await kv.close();
    });

    it('encrypts values that were stored unencrypted on the next update', async () => {
      const kv = new MemoryBackend();
      const plain = await new Store({ kv }).create(key, secret);
      const encrypted = new Store({ kv, transformer: make({ keys: [newKey] }) });
      const rewritten = await encrypted.guaranteedUpdate(key, { tryUpdate: (current) => current });
      expect(Number(rewritten.metadata.resourceVersion)).toBeGreaterThan(Number(plain.metadata.resourceVersion));
      expect(Buffer.from((await kv.get(key)).entry?.value ?? []).includes(Buffer.from('hunter2'))).toBe(false);
      await kv.close();
    });
  });
}
