import { X509Certificate, createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A public key that verifies service account tokens, with its key id. */
export interface VerificationKey {
  keyId: string;
  publicKey: KeyObject;
}

/** The keys of service account tokens: the one that signs and every one that verifies (the signer's first). */
export interface ServiceAccountKeys {
  signingKey: KeyObject;
  /** `kid` of the tokens this server signs. */
  signingKeyId: string;
  verificationKeys: VerificationKey[];
}

/** Name of the signing key generated in the data dir when `--service-account-signing-key-file` is not given. */
export const GENERATED_SIGNING_KEY_FILE = 'service-account.key';

/**
 * Upstream's key id: the unpadded base64url SHA-256 of the public key's PKIX DER encoding, so every
 * server with the same key names it the same.
 */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

/**
 * Loads the signing key (`--service-account-signing-key-file`, else `<dataDir>/service-account.key`, generated
 * once: RSA 2048, mode 0600, created atomically so that replicas sharing the data dir end up with the same key)
 * and the extra verification keys of `--service-account-key-file`.
 */
export function loadServiceAccountKeys(options: { signingKeyFile?: string; keyFiles?: readonly string[]; dataDir: string }): ServiceAccountKeys {
  const signingKeyFile = options.signingKeyFile ?? ensureGeneratedSigningKey(join(options.dataDir, GENERATED_SIGNING_KEY_FILE));
  const signingKey = createPrivateKey(readFileSync(signingKeyFile, 'utf8'));
  if (signingKey.asymmetricKeyType !== 'rsa') {
    throw new Error(`--service-account-signing-key-file ${signingKeyFile}: only RSA keys are supported (RS256), found ${signingKey.asymmetricKeyType ?? 'unknown'}`);
  }
  const signingPublicKey = createPublicKey(signingKey);
  const signingKeyId = keyIdOf(signingPublicKey);
  const verificationKeys: VerificationKey[] = [{ keyId: signingKeyId, publicKey: signingPublicKey }];
  for (const file of options.keyFiles ?? []) {
    for (const publicKey of publicKeysInPem(readFileSync(file, 'utf8'), file)) {
      const keyId = keyIdOf(publicKey);
      if (!verificationKeys.some((key) => key.keyId === keyId)) verificationKeys.push({ keyId, publicKey });
    }
  }
  return { signingKey, signingKeyId, verificationKeys };
}

/** The public keys of a PEM file: public keys, private keys (their public half) and certificates. */
export function publicKeysInPem(pem: string, name = 'key file'): KeyObject[] {
  const blocks = pem.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  const keys: KeyObject[] = [];
  for (const block of blocks) {
    const type = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(block)?.[1] ?? '';
    if (type === 'CERTIFICATE') keys.push(new X509Certificate(block).publicKey);
    else if (type.endsWith('PRIVATE KEY')) keys.push(createPublicKey(createPrivateKey(block)));
    else if (type.endsWith('PUBLIC KEY')) keys.push(createPublicKey(block));
  }
  if (keys.length === 0) throw new Error(`${name}: no public keys, private keys or certificates found`);
  return keys;
}

/** Creates the RSA key at `path` unless it exists (link of a finished temp file: a peer never reads half a key). */
function ensureGeneratedSigningKey(path: string): string {
  try {
    readFileSync(path);
    return path;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  return path;
}

/** One key of a JWKS document (go-jose's field order). */
export interface JsonWebKey {
  use: 'sig';
  kty: 'RSA';
  kid: string;
  alg: 'RS256';
  n: string;
  e: string;
}

/** The public JWKS of the verification keys (RSA ones; `/openid/v1/jwks`). */
export function jsonWebKeySet(keys: readonly VerificationKey[]): { keys: JsonWebKey[] } {
  const jwks: JsonWebKey[] = [];
  for (const { keyId, publicKey } of keys) {
    if (publicKey.asymmetricKeyType !== 'rsa') continue;
    const jwk = publicKey.export({ format: 'jwk' });
    jwks.push({ use: 'sig', kty: 'RSA', kid: keyId, alg: 'RS256', n: String(jwk.n), e: String(jwk.e) });
  }
  return { keys: jwks };
}
