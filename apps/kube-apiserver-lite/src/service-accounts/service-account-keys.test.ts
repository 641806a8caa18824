import { X509Certificate, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureCertificates } from '@kapi/server';
import { GENERATED_SIGNING_KEY_FILE, jsonWebKeySet, keyIdOf, loadServiceAccountKeys, publicKeysInPem } from './service-account-keys.js';

const directories: string[] = [];
const directory = () => {
  const path = mkdtempSync(join(tmpdir(), 'kapi-sa-keys-'));
  directories.push(path);
  return path;
};
afterEach(() => {
  for (const path of directories.splice(0)) rmSync(path, { recursive: true, force: true });
});

describe('loadServiceAccountKeys', () => {
  it('generates an RSA 2048 key once in the data dir (0600) and reuses it, as a peer on the same dir does', () => {
    const dataDir = directory();
    const first = loadServiceAccountKeys({ dataDir });
    const path = join(dataDir, GENERATED_SIGNING_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(first.signingKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const peer = loadServiceAccountKeys({ dataDir });
    expect(peer.signingKeyId).toBe(first.signingKeyId);
    expect(readFileSync(path, 'utf8')).toContain('BEGIN PRIVATE KEY');
  });

  it('names keys as upstream (base64url SHA-256 of the PKIX DER) and adds the key files', () => {
    const dataDir = directory();
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signingKeyFile = join(dataDir, 'signing.key');
    writeFileSync(signingKeyFile, privateKey.export({ type: 'pkcs1', format: 'pem' }));
    const old = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = join(dataDir, 'old.pub');
    writeFileSync(keyFile, old.publicKey.export({ type: 'spki', format: 'pem' }));
    const keys = loadServiceAccountKeys({ dataDir, signingKeyFile, keyFiles: [keyFile] });
    expect(keys.signingKeyId).toBe(keyIdOf(publicKey));
    expect(keys.verificationKeys.map((key) => key.keyId)).toEqual([keyIdOf(publicKey), keyIdOf(old.publicKey)]);
    expect(() => readFileSync(join(dataDir, GENERATED_SIGNING_KEY_FILE))).toThrow();
  });

  it('refuses a non-RSA signing key', () => {
    const dataDir = directory();
    const signingKeyFile = join(dataDir, 'ec.key');
    writeFileSync(signingKeyFile, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    expect(() => loadServiceAccountKeys({ dataDir, signingKeyFile })).toThrow('only RSA keys are supported');
  });
});

describe('publicKeysInPem', () => {
  it('reads certificates, public and private keys', () => {
    const dataDir = directory();
    const certificates = ensureCertificates(dataDir, { hosts: ['127.0.0.1'] });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = `${certificates.ca.certificatePem}\n${privateKey.export({ type: 'pkcs1', format: 'pem' }) as string}`;
    const keys = publicKeysInPem(pem);
    expect(keys.map(keyIdOf)).toEqual([keyIdOf(new X509Certificate(certificates.ca.certificatePem).publicKey), keyIdOf(createPublicKey(privateKey))]);
    expect(() => publicKeysInPem('nothing here', 'x.pem')).toThrow('x.pem: no public keys');
  });
});

describe('jsonWebKeySet', () => {
  it('publishes RSA keys with use, kty, kid, alg, n and e', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const [key] = jsonWebKeySet([{ keyId: keyIdOf(publicKey), publicKey }]).keys;
    expect(Object.keys(key ?? {})).toEqual(['use', 'kty', 'kid', 'alg', 'n', 'e']);
    expect(key).toMatchObject({ use: 'sig', kty: 'RSA', kid: keyIdOf(publicKey), alg: 'RS256', e: 'AQAB' });
    expect(createPublicKey({ key: { kty: 'RSA', n: key?.n ?? '', e: key?.e ?? '' }, format: 'jwk' }).export({ type: 'spki', format: 'pem' })).toBe(publicKey.export({ type: 'spki', format: 'pem' }));
  });
});
