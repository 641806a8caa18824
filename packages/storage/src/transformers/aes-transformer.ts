import { createCipheriv, createDecipheriv } from 'node:crypto';
import { randomNonce } from './random-nonce.js';
import type { TransformContext, TransformedValue, ValueTransformer } from '../codec.js';
import { startsWith } from './prefix-transformer.js';

/** One named encryption key. The first key of a transformer encrypts; every key decrypts. */
export interface EncryptionKey {
  /** Key name, stored in the value prefix (`k8s:enc:aesgcm:v1:<name>:`). */
  name: string;
  /** 16, 24 or 32 bytes (AES-128/192/256). */
  secret: Uint8Array;
}

/** Options of {@link aesGcmTransformer} and {@link aesCbcTransformer}. */
export interface AesTransformerOptions {
  keys: EncryptionKey[];
}

/** One AES mode: how to seal and open a value with a key. */
export interface AesMode {
  /** `aesgcm` or `aescbc`, as in the stored prefix. */
  readonly name: string;
  seal(secret: Uint8Array, plain: Uint8Array, additionalData: Uint8Array): Uint8Array;
  /** `prefix` followed by what `seal` returns, written into one buffer (no copy of the sealed bytes). */
  sealAfter?(prefix: Uint8Array, secret: Uint8Array, plain: Uint8Array, additionalData: Uint8Array): Uint8Array;
  /** False when the mode ignores the additional data (then callers need not build it). Default true. */
  readonly usesAdditionalData?: boolean;
  open(secret: Uint8Array, sealed: Uint8Array, additionalData: Uint8Array): Uint8Array;
}

const encryptedPrefix = 'k8s:enc:';

/**
 * A prefix transformer over named AES keys (k8s.io/apiserver storage/value/encrypt/aes): values are
 * stored as `k8s:enc:<mode>:v1:<key name>:<sealed bytes>`. Reading a value sealed with a non-first key,
 * or an unencrypted value (no `k8s:enc:` prefix, read as is), reports `stale` so it gets rewritten.
 */
export function aesTransformer(mode: AesMode, options: AesTransformerOptions): ValueTransformer {
  const keys = options.keys;
  if (keys.length === 0) throw new Error(`${mode.name}: at least one key is required`);
  const names = new Set<string>();
  for (const key of keys) {
    if (!key.name || key.name.includes(':')) throw new Error(`${mode.name}: invalid key name ${JSON.stringify(key.name)}`);
    if (names.has(key.name)) throw new Error(`${mode.name}: duplicate key name ${JSON.stringify(key.name)}`);
    names.add(key.name);
    if (![16, 24, 32].includes(key.secret.byteLength)) {
      throw new Error(`${mode.name}: key ${JSON.stringify(key.name)} must be 16, 24 or 32 bytes, got ${key.secret.byteLength}`);
    }
  }
  const modePrefix = `${encryptedPrefix}${mode.name}:v1:`;
  const modePrefixBytes = Buffer.from(modePrefix);
  const writer = keys[0] as EncryptionKey;
  const writerPrefix = Buffer.from(`${modePrefix}${writer.name}:`);
  const secrets = new Map(keys.map((key, index) => [key.name, { secret: key.secret, first: index === 0 }]));

  return {
    toStorage(data: Uint8Array, context: TransformContext): Uint8Array {
      const additionalData = additionalDataOf(mode, context);
      if (mode.sealAfter) return mode.sealAfter(writerPrefix, writer.secret, data, additionalData);
      return Buffer.concat([writerPrefix, mode.seal(writer.secret, data, additionalData)]);
    },
    fromStorage(data: Uint8Array, context: TransformContext): TransformedValue {
      const value = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      if (!startsWith(value, modePrefixBytes)) {
        if (startsWith(value, Buffer.from(encryptedPrefix))) throw new Error('no matching prefix found');
        return { data, stale: true };
      }
      const nameEnd = value.indexOf(0x3a /* : */, modePrefixBytes.length);
      if (nameEnd < 0) throw new Error(`${mode.name}: stored value has no key name`);
      const name = value.subarray(modePrefixBytes.length, nameEnd).toString('utf8');
      const key = secrets.get(name);
      if (!key) throw new Error(`${mode.name}: no key named ${JSON.stringify(name)} to decrypt the value`);
      const plain = mode.open(key.secret, value.subarray(nameEnd + 1), additionalDataOf(mode, context));
      return { data: plain, stale: !key.first };
    },
    readsStale(data: Uint8Array): boolean {
      const value = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      if (startsWith(value, writerPrefix)) return false;
      if (!startsWith(value, modePrefixBytes)) return !startsWith(value, Buffer.from(encryptedPrefix));
      const nameEnd = value.indexOf(0x3a /* : */, modePrefixBytes.length);
      return nameEnd >= 0 && secrets.has(value.subarray(modePrefixBytes.length, nameEnd).toString('utf8'));
    },
  };
}

const noAdditionalData = new Uint8Array(0);

/** The storage key as the mode's additional data (empty for a mode that ignores it). */
export function additionalDataOf(mode: AesMode, context: TransformContext): Uint8Array {
  return mode.usesAdditionalData === false ? noAdditionalData : Buffer.from(context.key);
}

function algorithm(mode: 'gcm' | 'cbc', secret: Uint8Array): 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm' | 'aes-128-cbc' | 'aes-192-cbc' | 'aes-256-cbc' {
  const bits = secret.byteLength * 8;
  return `aes-${bits as 128 | 192 | 256}-${mode}`;
}

const gcmNonceSize = 12;
const gcmTagSize = 16;

/** AES-GCM: 12-byte random nonce + ciphertext + 16-byte tag, the storage key as additional data. */
export const aesGcmMode: AesMode = {
  name: 'aesgcm',
  seal(secret, plain, additionalData) {
    const nonce = randomNonce(gcmNonceSize);
    const cipher = createCipheriv(algorithm('gcm', secret) as 'aes-256-gcm', secret, nonce, { authTagLength: gcmTagSize });
    cipher.setAAD(additionalData);
    return Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  },
  open(secret, sealed, additionalData) {
    if (sealed.byteLength < gcmNonceSize + gcmTagSize) throw new Error('aesgcm: the stored data was shorter than the required size');
    const nonce = sealed.subarray(0, gcmNonceSize);
    const tag = sealed.subarray(sealed.byteLength - gcmTagSize);
    const decipher = createDecipheriv(algorithm('gcm', secret) as 'aes-256-gcm', secret, nonce, { authTagLength: gcmTagSize });
    decipher.setAAD(additionalData);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(gcmNonceSize, sealed.byteLength - gcmTagSize)), decipher.final()]);
  },
};

const cbcBlockSize = 16;

/** AES-CBC: 16-byte random IV + PKCS#7-padded ciphertext. */
export const aesCbcMode: AesMode = {
  name: 'aescbc',
  seal(secret, plain) {
    const iv = randomNonce(cbcBlockSize);
    const cipher = createCipheriv(algorithm('cbc', secret), secret, iv);
    return Buffer.concat([iv, cipher.update(plain), cipher.final()]);
  },
  open(secret, sealed) {
    if (sealed.byteLength < cbcBlockSize * 2 || sealed.byteLength % cbcBlockSize !== 0) {
      throw new Error('aescbc: the stored data is not a multiple of the block size');
    }
    const decipher = createDecipheriv(algorithm('cbc', secret), secret, sealed.subarray(0, cbcBlockSize));
    return Buffer.concat([decipher.update(sealed.subarray(cbcBlockSize)), decipher.final()]);
  },
};

/** Encryption at rest with AES-GCM (`k8s:enc:aesgcm:v1:<name>:`), the storage key as additional data. */
export function aesGcmTransformer(options: AesTransformerOptions): ValueTransformer {
  return aesTransformer(aesGcmMode, options);
}

/** Encryption at rest with AES-CBC and PKCS#7 padding (`k8s:enc:aescbc:v1:<name>:`). */
export function aesCbcTransformer(options: AesTransformerOptions): ValueTransformer {
  return aesTransformer(aesCbcMode, options);
}
