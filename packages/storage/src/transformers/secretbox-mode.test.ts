import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { providersTransformer } from './encryption-configuration.js';
import { loadFastSecretbox, secretboxMode, tweetnaclSecretbox } from './secretbox-mode.js';

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
});
