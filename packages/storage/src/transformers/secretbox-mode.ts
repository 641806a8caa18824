import nacl from 'tweetnacl';
import type { AesMode } from './aes-transformer.js';
import { randomNonceInto } from './random-nonce.js';
import { wasmSecretbox, type SodiumModule } from './secretbox-wasm.js';

const nonceSize = nacl.secretbox.nonceLength;
const tagSize = nacl.secretbox.overheadLength;

/** One implementation of NaCl's secretbox: the sealed box is the 16-byte tag, then the ciphertext. */
export interface SecretboxImplementation {
  seal(plain: Uint8Array, nonce: Uint8Array, secret: Uint8Array): Uint8Array;
  /** The plain bytes, or undefined when the box does not authenticate. */
  open(box: Uint8Array, nonce: Uint8Array, secret: Uint8Array): Uint8Array | undefined;
  /** Writes the sealed box of `plain` (`plain.byteLength` + 16 bytes) into `out` at `offset`. */
  sealInto(plain: Uint8Array, nonce: Uint8Array, secret: Uint8Array, out: Uint8Array, offset: number): void;
}

/** tweetnacl (pure JS): synchronous from the start, ~3x slower than libsodium's WASM build on 2 KB values. */
export const tweetnaclSecretbox: SecretboxImplementation = {
  seal: (plain, nonce, secret) => nacl.secretbox(plain, nonce, secret),
  open: (box, nonce, secret) => nacl.secretbox.open(box, nonce, secret) ?? undefined,
  sealInto: (plain, nonce, secret, out, offset) => out.set(nacl.secretbox(plain, nonce, secret), offset),
};

let implementation: SecretboxImplementation = tweetnaclSecretbox;
let loading: Promise<SecretboxImplementation> | undefined;

/** libsodium-wrappers' own functions, for a build that does not expose its WASM module. */
interface SodiumWrappers {
  crypto_secretbox_easy(plain: Uint8Array, nonce: Uint8Array, secret: Uint8Array): Uint8Array;
  crypto_secretbox_open_easy(box: Uint8Array, nonce: Uint8Array, secret: Uint8Array): Uint8Array;
  libsodium?: Partial<SodiumModule>;
}

function isSodiumModule(module: Partial<SodiumModule> | undefined): module is SodiumModule {
  return (
    module !== undefined &&
    typeof module._malloc === 'function' &&
    typeof module._free === 'function' &&
    typeof module._crypto_secretbox_easy === 'function' &&
    typeof module._crypto_secretbox_open_easy === 'function' &&
    module.HEAPU8 instanceof Uint8Array
  );
}

function wrappersSecretbox(sodium: SodiumWrappers): SecretboxImplementation {
  return {
    seal: (plain, nonce, secret) => sodium.crypto_secretbox_easy(plain, nonce, secret),
    open(box, nonce, secret) {
      try {
        return sodium.crypto_secretbox_open_easy(box, nonce, secret);
      } catch {
        return undefined;
      }
    },
    sealInto: (plain, nonce, secret, out, offset) => out.set(sodium.crypto_secretbox_easy(plain, nonce, secret), offset),
  };
}

/**
 * Loads libsodium's WASM build (same format and results as tweetnacl) and makes it the implementation of
 * every secretbox transformer once ready; until then, and if it cannot load, tweetnacl serves. Started by
 * the first secretbox provider configured; awaiting it (e.g. at server start) makes later writes and reads
 * use libsodium from the first one. Resolves to the implementation in use. The WASM functions are called
 * directly when the build exposes its module (see {@link wasmSecretbox}), else through the wrappers.
 */
export function loadFastSecretbox(): Promise<SecretboxImplementation> {
  loading ??= import('libsodium-wrappers')
    .then(async ({ default: wrappers }) => {
      await wrappers.ready;
      const sodium = wrappers as unknown as SodiumWrappers;
      implementation = isSodiumModule(sodium.libsodium) ? wasmSecretbox(sodium.libsodium) : wrappersSecretbox(sodium);
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
  usesAdditionalData: false,
  seal(secret, plain) {
    return sealAfter(EMPTY, secret, plain);
  },
  sealAfter(prefix, secret, plain) {
    return sealAfter(prefix, secret, plain);
  },
  open(secret, sealed) {
    if (sealed.byteLength < nonceSize) throw new Error('the stored data was shorter than the required size');
    const plain = implementation.open(sealed.subarray(nonceSize), sealed.subarray(0, nonceSize), secret);
    if (!plain) throw new Error('output array was not large enough for encryption');
    return plain;
  },
};

const EMPTY = new Uint8Array(0);

/** `prefix`, a fresh nonce and the sealed box, written once into one buffer. */
function sealAfter(prefix: Uint8Array, secret: Uint8Array, plain: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(prefix.byteLength + nonceSize + tagSize + plain.byteLength);
  out.set(prefix, 0);
  const nonceAt = prefix.byteLength;
  randomNonceInto(out, nonceAt, nonceSize);
  implementation.sealInto(plain, out.subarray(nonceAt, nonceAt + nonceSize), secret, out, nonceAt + nonceSize);
  return out;
}
