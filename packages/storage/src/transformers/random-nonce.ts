import { randomFillSync } from 'node:crypto';

/** Random bytes fetched from the CSPRNG at once, handed out in nonce-sized pieces (each byte once). */
const poolSize = 4096;
const pool = Buffer.allocUnsafe(poolSize);
let used = poolSize;

/**
 * `size` fresh random bytes (a nonce or IV) from a pool refilled by one `randomFillSync` per 4 KiB: a
 * `randomBytes` call per sealed value cost several microseconds of a migration's rewrite, more than
 * slicing a pool. The bytes are copied out, never handed out twice.
 */
export function randomNonce(size: number): Buffer {
  const nonce = Buffer.allocUnsafe(size);
  randomNonceInto(nonce, 0, size);
  return nonce;
}

/** Writes `size` fresh random bytes (from the same pool as {@link randomNonce}) into `target` at `offset`. */
export function randomNonceInto(target: Uint8Array, offset: number, size: number): void {
  if (size > poolSize) {
    randomFillSync(target, offset, size);
    return;
  }
  if (used + size > poolSize) {
    randomFillSync(pool);
    used = 0;
  }
  pool.copy(target, offset, used, used + size);
  used += size;
}
