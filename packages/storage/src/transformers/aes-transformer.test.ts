import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aesCbcTransformer, aesGcmTransformer } from './aes-transformer.js';

const context = { key: '/registry/secrets/default/s' };
const plain = Buffer.from('{"metadata":{"name":"s"}}');

for (const [mode, make] of [
  ['aesgcm', aesGcmTransformer],
  ['aescbc', aesCbcTransformer],
] as const) {
  describe(`${mode} transformer`, () => {
    const k1 = { name: 'k1', secret: randomBytes(32) };
    const k2 = { name: 'k2', secret: randomBytes(16) };

    it('stores with the prefix of the first key and reads it back fresh', () => {
      const transformer = make({ keys: [k1, k2] });
      const stored = transformer.toStorage(plain, context);
      expect(Buffer.from(stored).subarray(0, `k8s:enc:${mode}:v1:k1:`.length).toString()).toBe(`k8s:enc:${mode}:v1:k1:`);
      expect(Buffer.from(stored).includes(plain)).toBe(false);
      expect(Buffer.from(stored).equals(Buffer.from(transformer.toStorage(plain, context)))).toBe(false);
      const read = transformer.fromStorage(stored, context);
      expect(Buffer.from(read.data).equals(plain)).toBe(true);
      expect(read.stale).toBe(false);
    });

    it('reads values of a non-first key as stale, and unencrypted values as stale identity', () => {
      const old = make({ keys: [k2] }).toStorage(plain, context);
      const rotated = make({ keys: [k1, k2] });
      const read = rotated.fromStorage(old, context);
      expect(Buffer.from(read.data).equals(plain)).toBe(true);
      expect(read.stale).toBe(true);
      const unencrypted = rotated.fromStorage(plain, context);
      expect(Buffer.from(unencrypted.data).equals(plain)).toBe(true);
      expect(unencrypted.stale).toBe(true);
    });

    it('fails for an unknown key name, a foreign encryption prefix and tampered data', () => {
      const stored = make({ keys: [k2] }).toStorage(plain, context);
      expect(() => make({ keys: [k1] }).fromStorage(stored, context)).toThrow('no key named "k2"');
      expect(() => make({ keys: [k1] }).fromStorage(Buffer.from('k8s:enc:kms:v2:x:abc'), context)).toThrow('no matching prefix found');
      const tampered = Buffer.from(stored);
      tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 0xff;
      expect(() => make({ keys: [k2] }).fromStorage(tampered, context)).toThrow();
    });

    it('validates its keys', () => {
      expect(() => make({ keys: [] })).toThrow('at least one key');
      expect(() => make({ keys: [{ name: 'k', secret: randomBytes(20) }] })).toThrow('16, 24 or 32 bytes');
      expect(() => make({ keys: [k1, { ...k2, name: 'k1' }] })).toThrow('duplicate key name');
      expect(() => make({ keys: [{ name: 'a:b', secret: randomBytes(16) }] })).toThrow('invalid key name');
    });
  });
}

describe('aesgcm additional data', () => {
  it('binds the value to its storage key', () => {
    const transformer = aesGcmTransformer({ keys: [{ name: 'k', secret: randomBytes(24) }] });
    const stored = transformer.toStorage(plain, context);
    expect(() => transformer.fromStorage(stored, { key: '/registry/secrets/default/other' })).toThrow();
  });
});
