import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { providersTransformer } from './encryption-configuration.js';
import { loadFastSecretbox, secretboxMode, tweetnaclSecretbox } from './secretbox-mode.js';
import { wasmSecretbox, type SodiumModule } from './secretbox-wasm.js';

const context = { key: '/registry/configmaps/default/a' };
const plain = Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"k":"v"}}');
/** Key bytes 0..31, nonce bytes 100..123: written by the tweetnacl-only implementation, as stored in etcd. */
const secret = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
const storedByTweetnacl = Buffer.from(
  'azhzOmVuYzpzZWNyZXRib3g6djE6a2V5MTpkZWZnaGlqa2xtbm9wcXJzdHV2d3h5envXiJhSDxqSlSUdo7MqXf7zeZvyoFTS7NOSvkz6Ue3EVV/aGovGxzty8Gkw52Pkp6qSTYIpbRu5iZBidgZhZ7xH++uMdnPrXH05wzImpp68ACL/LU/yR2rhm7U9hGK+kA==',
  'base64',
);

describe('secretbox mode', () => {
  it('loads libsodium, which seals the same bytes as tweetnacl and opens what tweetnacl sealed', async () => {
    const fast = await loadFastSecretbox();
    expect(fast).not.toBe(tweetnaclSecretbox);
    const key = randomBytes(32);
    const nonce = randomBytes(24);
    const value = randomBytes(2048);
    const sealed = fast.seal(value, nonce, key);
    expect(Buffer.from(sealed).equals(Buffer.from(tweetnaclSecretbox.seal(value, nonce, key)))).toBe(true);
    expect(Buffer.from(tweetnaclSecretbox.open(sealed, nonce, key) ?? []).equals(value)).toBe(true);
    expect(Buffer.from(fast.open(tweetnaclSecretbox.seal(value, nonce, key), nonce, key) ?? []).equals(value)).toBe(true);
  });

  it('reads a value written by the tweetnacl-only implementation (fixed vector), as stale after a key rotation', async () => {
    await loadFastSecretbox();
    const current = providersTransformer([{ secretbox: { keys: [{ name: 'key1', secret }] } }]);
    expect(current.fromStorage(storedByTweetnacl, context)).toEqual({ data: expect.anything(), stale: false });
    expect(Buffer.from(current.fromStorage(storedByTweetnacl, context).data).equals(plain)).toBe(true);
    const rotated = providersTransformer([{ secretbox: { keys: [{ name: 'key2', secret: randomBytes(32).toString('base64') }, { name: 'key1', secret }] } }]);
    const read = rotated.fromStorage(storedByTweetnacl, context);
    expect(read.stale).toBe(true);
    expect(Buffer.from(read.data).equals(plain)).toBe(true);
  });

  it('refuses a tampered box, a wrong key and a value shorter than a nonce', async () => {
    await loadFastSecretbox();
    const key = randomBytes(32);
    const sealed = Buffer.from(secretboxMode.seal(key, plain, new Uint8Array(0)));
    expect(Buffer.from(secretboxMode.open(key, sealed, new Uint8Array(0))).equals(plain)).toBe(true);
    const tampered = Buffer.from(sealed);
    tampered[tampered.byteLength - 1] = (tampered[tampered.byteLength - 1] ?? 0) ^ 1;
    expect(() => secretboxMode.open(key, tampered, new Uint8Array(0))).toThrow('output array was not large enough for encryption');
    expect(() => secretboxMode.open(randomBytes(32), sealed, new Uint8Array(0))).toThrow('output array was not large enough for encryption');
    expect(() => secretboxMode.open(key, sealed.subarray(0, 30), new Uint8Array(0))).toThrow('output array was not large enough for encryption');
    expect(() => secretboxMode.open(key, sealed.subarray(0, 10), new Uint8Array(0))).toThrow('the stored data was shorter than the required size');
  });

  it('calls the WASM functions directly, with the bytes of tweetnacl, for small and large values', async () => {
    const { default: sodium } = await import('libsodium-wrappers');
    await sodium.ready;
    const module = (sodium as unknown as { libsodium: SodiumModule }).libsodium;
    const fast = wasmSecretbox(module);
    const key = randomBytes(32);
    const nonce = randomBytes(24);
    for (const size of [0, 1, 2048, 300 * 1024]) {
      const value = randomBytes(size);
      const expected = Buffer.from(tweetnaclSecretbox.seal(value, nonce, key));
      expect(Buffer.from(fast.seal(value, nonce, key)).equals(expected)).toBe(true);
      const out = Buffer.alloc(size + 16 + 3);
      fast.sealInto(value, nonce, key, out, 3);
      expect(out.subarray(3).equals(expected)).toBe(true);
      expect(Buffer.from(fast.open(expected, nonce, key) ?? []).equals(value)).toBe(true);
      const tampered = Buffer.from(expected);
      tampered[0] = (tampered[0] ?? 0) ^ 1;
      expect(fast.open(tampered, nonce, key)).toBeUndefined();
    }
    expect(fast.open(new Uint8Array(15), nonce, key)).toBeUndefined();
    expect(() => fast.seal(Buffer.from('x'), nonce, key.subarray(0, 16))).toThrow('invalid key length');
  });

  it('seals after a prefix into one buffer: prefix, nonce, box', async () => {
    await loadFastSecretbox();
    const key = randomBytes(32);
    const prefix = Buffer.from('k8s:enc:secretbox:v1:key1:');
    const stored = Buffer.from(secretboxMode.sealAfter?.(prefix, key, plain, new Uint8Array(0)) ?? []);
    expect(stored.subarray(0, prefix.byteLength).equals(prefix)).toBe(true);
    const nonce = stored.subarray(prefix.byteLength, prefix.byteLength + 24);
    expect(Buffer.from(tweetnaclSecretbox.open(stored.subarray(prefix.byteLength + 24), nonce, key) ?? []).equals(plain)).toBe(true);
    const transformer = providersTransformer([{ secretbox: { keys: [{ name: 'key1', secret: key.toString('base64') }] } }]);
    const written = transformer.toStorage(plain, context);
    expect(Buffer.from(written).subarray(0, prefix.byteLength).equals(prefix)).toBe(true);
    expect(Buffer.from(transformer.fromStorage(written, context).data).equals(plain)).toBe(true);
  });
});
