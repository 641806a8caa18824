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
  if (size > poolSize) return randomFillSync(Buffer.allocUnsafe(size));
  if (used + size > poolSize) {
    randomFillSync(pool);
    used = 0;
  }
  const nonce = Buffer.from(pool.subarray(used, used + size));
  used += size;
  return nonce;
}
