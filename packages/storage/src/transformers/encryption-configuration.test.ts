import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EncryptionTransformers,
  parseEncryptionConfiguration,
  providersTransformer,
  type EncryptionProviderConfiguration,
} from './encryption-configuration.js';

const context = { key: '/registry/secrets/default/s' };
const plain = Buffer.from('{"kind":"Secret","metadata":{"name":"s"},"data":{"password":"aHVudGVyMg=="}}');
const key = (name: string, bytes = 32) => ({ name, secret: randomBytes(bytes).toString('base64') });
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');
const configuration = (resources: string[], providers: EncryptionProviderConfiguration[]) => ({
  apiVersion: 'apiserver.config.k8s.io/v1',
  kind: 'EncryptionConfiguration',
  resources: [{ resources, providers }],
});

describe('providersTransformer', () => {
  for (const type of ['aescbc', 'aesgcm', 'secretbox'] as const) {
    it(`${type}: writes k8s:enc:${type}:v1:<first key>: and reads every key, non-first keys as stale`, () => {
      const key1 = key('key1');
      const key2 = key('key2');
      const before = providersTransformer([{ [type]: { keys: [key1] } }]);
      const stored = before.toStorage(plain, context);
      expect(text(stored).startsWith(`k8s:enc:${type}:v1:key1:`)).toBe(true);
      expect(text(stored).includes('hunter') || Buffer.from(stored).includes(plain)).toBe(false);
      expect(before.fromStorage(stored, context)).toEqual({ data: expect.anything(), stale: false });

      const rotated = providersTransformer([{ [type]: { keys: [key2, key1] } }]);
      const read = rotated.fromStorage(stored, context);
      expect(Buffer.from(read.data).equals(plain)).toBe(true);
      expect(read.stale).toBe(true);
      const rewritten = rotated.toStorage(read.data, context);
      expect(text(rewritten).startsWith(`k8s:enc:${type}:v1:key2:`)).toBe(true);
      expect(rotated.fromStorage(rewritten, context).stale).toBe(false);
    });
  }

  it('secretbox stores nonce(24) + tag(16) + ciphertext after the prefix', () => {
    const stored = providersTransformer([{ secretbox: { keys: [key('k')] } }]).toStorage(plain, context);
    expect(stored.byteLength).toBe('k8s:enc:secretbox:v1:k:'.length + 24 + 16 + plain.byteLength);
  });

  it('reads plain values through a later identity provider as stale, and refuses them without one', () => {
    const withIdentity = providersTransformer([{ aesgcm: { keys: [key('k')] } }, { identity: {} }]);
    expect(withIdentity.fromStorage(plain, context)).toEqual({ data: plain, stale: true });
    const without = providersTransformer([{ aesgcm: { keys: [key('k')] } }]);
    expect(() => without.fromStorage(plain, context)).toThrow('no matching prefix found');
  });

  it('identity first writes plain text, reads encrypted values with a later key as stale, and refuses encrypted values alone', () => {
    const k = key('k');
    const encrypted = providersTransformer([{ aescbc: { keys: [k] } }]).toStorage(plain, context);
    const decrypting = providersTransformer([{ identity: {} }, { aescbc: { keys: [k] } }]);
    expect(Buffer.from(decrypting.toStorage(plain, context)).equals(plain)).toBe(true);
    expect(decrypting.fromStorage(encrypted, context).stale).toBe(true);
    expect(() => providersTransformer([{ identity: {} }]).fromStorage(encrypted, context)).toThrow('no matching prefix found');
  });
});

describe('parseEncryptionConfiguration', () => {
  it('accepts a valid configuration', () => {
    const document = configuration(['secrets', '*.apps'], [{ secretbox: { keys: [key('k')] } }, { identity: {} }]);
    expect(parseEncryptionConfiguration(document)).toBe(document);
  });

  it('reports every problem with its field path', () => {
    const document = configuration(
      ['Secrets'],
      [
        { aescbc: { keys: [{ name: 'a', secret: randomBytes(20).toString('base64') }, { name: 'a', secret: 'not base64!' }] } },
        { secretbox: { keys: [key('b', 16)] } },
        { aesgcm: { keys: [] }, identity: {} },
        {},
      ],
    );
    const message = (() => {
      try {
        parseEncryptionConfiguration(document);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain('resources[0].resources[0]: Invalid value: "Secrets"');
    expect(message).toContain('resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 20, expected one of [16 24 32]');
    expect(message).toContain('resources[0].providers[0].aescbc.keys[1].name: Duplicate value: "a"');
    expect(message).toContain('resources[0].providers[0].aescbc.keys[1].secret: Invalid value: "REDACTED": secrets must be base64 encoded');
    expect(message).toContain('resources[0].providers[1].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]');
    expect(message).toContain('resources[0].providers[2]: Invalid value: ["aesgcm","identity"]: more than one provider specified');
    expect(message).toContain('resources[0].providers[3]: Invalid value: {}: provider does not contain any of the expected providers');
    expect(() => parseEncryptionConfiguration({ ...document, apiVersion: 'v1' })).toThrow('got unexpected config type');
  });
});

describe('EncryptionTransformers', () => {
  it('matches exact names before *.<group> before *.*, leaves other resources plain, and follows updates', () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const transformers = new EncryptionTransformers({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'EncryptionConfiguration',
      resources: [
        { resources: ['*.apps'], providers: [{ aesgcm: { keys: [k1] } }] },
        { resources: ['deployments.apps', 'secrets'], providers: [{ aescbc: { keys: [k1] } }] },
      ],
    });
    const write = (group: string, resource: string) => text(transformers.transformerFor({ group, resource }).toStorage(plain, context));
    expect(write('apps', 'deployments')).toMatch(/^k8s:enc:aescbc:v1:k1:/);
    expect(write('apps', 'replicasets')).toMatch(/^k8s:enc:aesgcm:v1:k1:/);
    expect(write('', 'secrets')).toMatch(/^k8s:enc:aescbc:v1:k1:/);
    expect(write('', 'configmaps')).toBe(text(plain));

    const secrets = transformers.transformerFor({ group: '', resource: 'secrets' });
    const stored = secrets.toStorage(plain, context);
    transformers.update({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'EncryptionConfiguration',
      resources: [{ resources: ['*.*'], providers: [{ secretbox: { keys: [k2] } }, { aescbc: { keys: [k1] } }] }],
    });
    expect(secrets.fromStorage(stored, context).stale).toBe(true);
    expect(text(secrets.toStorage(plain, context))).toMatch(/^k8s:enc:secretbox:v1:k2:/);
    expect(write('', 'configmaps')).toMatch(/^k8s:enc:secretbox:v1:k2:/);
  });
});
