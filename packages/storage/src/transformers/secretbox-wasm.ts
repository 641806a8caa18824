import type { SecretboxImplementation } from './secretbox-mode.js';

/** The parts of libsodium's Emscripten module (`libsodium-wrappers`' `libsodium`) that secretbox uses. */
export interface SodiumModule {
  _malloc(size: number): number;
  _free(pointer: number): void;
  /** The module's memory; replaced when the memory grows, so read it after every `_malloc`. */
  HEAPU8: Uint8Array;
  /** crypto_secretbox_easy(c, m, mlen (low, high 32 bits), n, k): 0 on success. */
  _crypto_secretbox_easy(out: number, plain: number, lengthLow: number, lengthHigh: number, nonce: number, key: number): number;
  /** crypto_secretbox_open_easy(m, c, clen (low, high 32 bits), n, k): 0 when the box authenticates. */
  _crypto_secretbox_open_easy(out: number, box: number, lengthLow: number, lengthHigh: number, nonce: number, key: number): number;
}

const keySize = 32;
const nonceSize = 24;
const tagSize = 16;
/** Values up to this size reuse one scratch area of the module's memory; larger ones get their own. */
const scratchLimit = 256 * 1024;

/**
 * libsodium's secretbox called on its WASM memory directly: the wrappers' `crypto_secretbox_easy` and
 * `crypto_secretbox_open_easy` allocate and free four areas per call and return a fresh zero-filled
 * Uint8Array, which cost more than the cipher on 2 KB values (a storage migration rewrites every object).
 * Here key, nonce, input and output share one scratch area, the sealed box is copied straight into the
 * caller's buffer, and the plain bytes into a pooled Buffer. The scratch area is zeroed after each call.
 */
export function wasmSecretbox(sodium: SodiumModule): SecretboxImplementation {
  let scratch = 0;
  let capacity = 0;

  /** Runs `operation` with key at `base`, nonce after it, the input after that and room for the output. */
  const run = (
    input: Uint8Array,
    nonce: Uint8Array,
    secret: Uint8Array,
    outputLength: number,
    operation: (out: number, input: number, nonce: number, key: number) => number,
    deliver: (memory: Uint8Array, out: number) => void,
  ): boolean => {
    if (secret.byteLength !== keySize) throw new Error('invalid key length');
    if (nonce.byteLength !== nonceSize) throw new Error('invalid nonce length');
    const needed = keySize + nonceSize + input.byteLength + outputLength;
    const own = needed > scratchLimit;
    let base: number;
    if (own) {
      base = sodium._malloc(needed);
    } else {
      if (needed > capacity) {
        if (scratch !== 0) sodium._free(scratch);
        capacity = Math.max(needed, 16 * 1024);
        scratch = sodium._malloc(capacity);
        if (scratch === 0) capacity = 0;
      }
      base = scratch;
    }
    if (base === 0) throw new Error('_malloc() failed');
    const noncePointer = base + keySize;
    const inputPointer = noncePointer + nonceSize;
    const outputPointer = inputPointer + input.byteLength;
    try {
      let memory = sodium.HEAPU8;
      memory.set(secret, base);
      memory.set(nonce, noncePointer);
      memory.set(input, inputPointer);
      const failed = operation(outputPointer, inputPointer, noncePointer, base) !== 0;
      memory = sodium.HEAPU8;
      if (!failed) deliver(memory, outputPointer);
      return !failed;
    } finally {
      sodium.HEAPU8.fill(0, base, base + needed);
      if (own) sodium._free(base);
    }
  };

  const sealInto = (plain: Uint8Array, nonce: Uint8Array, secret: Uint8Array, out: Uint8Array, offset: number): void => {
    const length = plain.byteLength + tagSize;
    const sealed = run(
      plain,
      nonce,
      secret,
      length,
      (output, input, noncePointer, key) => sodium._crypto_secretbox_easy(output, input, plain.byteLength, 0, noncePointer, key),
      (memory, output) => out.set(memory.subarray(output, output + length), offset),
    );
    if (!sealed) throw new Error('invalid usage');
  };

  return {
    sealInto,
    seal(plain, nonce, secret) {
      const out = Buffer.allocUnsafe(plain.byteLength + tagSize);
      sealInto(plain, nonce, secret, out, 0);
      return out;
    },
    open(box, nonce, secret) {
      if (box.byteLength < tagSize) return undefined;
      const length = box.byteLength - tagSize;
      let plain: Buffer | undefined;
      const opened = run(
        box,
        nonce,
        secret,
        length,
        (output, input, noncePointer, key) => sodium._crypto_secretbox_open_easy(output, input, box.byteLength, 0, noncePointer, key),
        (memory, output) => {
          plain = Buffer.allocUnsafe(length);
          plain.set(memory.subarray(output, output + length), 0);
        },
      );
      return opened ? plain : undefined;
    },
  };
}
