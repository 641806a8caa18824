import nacl from 'tweetnacl';
import type { AesMode } from './aes-transformer.js';
import { randomNonce } from './random-nonce.js';

const nonceSize = nacl.secretbox.nonceLength;

/** One implementation of NaCl's secretbox: the sealed box is the 16-byte tag, then the ciphertext. */
export interface SecretboxImplementation {
  seal(plain: Uint8Array, nonce: Uint8Array, secret: Uint8Array): Uint8Array;
  /** The plain bytes, or undefined when the box does not authenticate. */
  open(box: Uint8Array, nonce: Uint8Array, secret: Uint8Array): Uint8Array | undefined;
}

/** tweetnacl (pure JS): synchronous from the start, ~3x slower than libsodium's WASM build on 2 KB values. */
export const tweetnaclSecretbox: SecretboxImplementation = {
  seal: (plain, nonce, secret) => nacl.secretbox(plain, nonce, secret),
  open: (box, nonce, secret) => nacl.secretbox.open(box, nonce, secret) ?? undefined,
};

let implementation: SecretboxImplementation = tweetnaclSecretbox;
let loading: Promise<SecretboxImplementation> | undefined;

/**
 * Loads libsodium's WASM build (same format and results as tweetnacl) and makes it the implementation of
 * every secretbox transformer once ready; until then, and if it cannot load, tweetnacl serves. Started by
 * the first secretbox provider configured; awaiting it (e.g. at server start) makes later writes and reads
 * use libsodium from the first one. Resolves to the implementation in use.
 */
export function loadFastSecretbox(): Promise<SecretboxImplementation> {
  loading ??= import('libsodium-wrappers')
    .then(async ({ default: sodium }) => {
      await sodium.ready;
      implementation = {
        seal: (plain, nonce, secret) => sodium.crypto_secretbox_easy(plain, nonce, secret),
        open(box, nonce, secret) {
          try {
            return sodium.crypto_secretbox_open_easy(box, nonce, secret);
          } catch {
            return undefined;
          }
        },
      };
      return implementation;
    })
    .catch(() => implementation);
  return loading;
}

/**
 * NaCl secretbox (XSalsa20-Poly1305) as k8s.io/apiserver's secretbox provider stores it: a 24-byte
 * random nonce, then the sealed box (16-byte tag, then ciphertext). Keys are 32 bytes; no additional data.
 * It shares the AES providers' key-mode shape, so the same prefix and key handling serves it.
 */
export const secretboxMode: AesMode = {
  name: 'secretbox',
  seal(secret, plain) {
    const nonce = randomNonce(nonceSize);
    return Buffer.concat([nonce, implementation.seal(plain, nonce, secret)]);
  },
  open(secret, sealed) {
    if (sealed.byteLength < nonceSize) throw new Error('the stored data was shorter than the required size');
    const plain = implementation.open(sealed.subarray(nonceSize), sealed.subarray(0, nonceSize), secret);
    if (!plain) throw new Error('output array was not large enough for encryption');
    return plain;
  },
};
