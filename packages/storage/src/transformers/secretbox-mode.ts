import nacl from 'tweetnacl';
import type { AesMode } from './aes-transformer.js';
import { randomNonce } from './random-nonce.js';

const nonceSize = nacl.secretbox.nonceLength;

/**
 * NaCl secretbox (XSalsa20-Poly1305) as k8s.io/apiserver's secretbox provider stores it: a 24-byte
 * random nonce, then the sealed box (16-byte tag, then ciphertext). Keys are 32 bytes; no additional data.
 * It shares the AES providers' key-mode shape, so the same prefix and key handling serves it.
 */
export const secretboxMode: AesMode = {
  name: 'secretbox',
  seal(secret, plain) {
    const nonce = randomNonce(nonceSize);
    return Buffer.concat([nonce, nacl.secretbox(plain, nonce, secret)]);
  },
  open(secret, sealed) {
    if (sealed.byteLength < nonceSize) throw new Error('the stored data was shorter than the required size');
    const plain = nacl.secretbox.open(sealed.subarray(nonceSize), sealed.subarray(0, nonceSize), secret);
    if (!plain) throw new Error('output array was not large enough for encryption');
    return plain;
  },
};
