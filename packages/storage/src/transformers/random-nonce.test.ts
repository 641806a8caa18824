import { describe, expect, it } from 'vitest';
import { randomNonce, randomNonceInto } from './random-nonce.js';

describe('randomNonce', () => {
  it('hands out fresh bytes of the size asked, never the same ones twice, across pool refills', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 1000; index++) {
      const nonce = randomNonce(24);
      expect(nonce).toHaveLength(24);
      seen.add(nonce.toString('hex'));
    }
    expect(seen.size).toBe(1000);
    expect(randomNonce(12)).toHaveLength(12);
    expect(randomNonce(5000)).toHaveLength(5000);
  });

  it('returns copies: a nonce does not change when the pool is refilled', () => {
    const first = randomNonce(16);
    const kept = Buffer.from(first);
    for (let index = 0; index < 600; index++) randomNonce(16);
    expect(first.equals(kept)).toBe(true);
  });

  it('writes nonces into a buffer at an offset, leaving the bytes around them alone', () => {
    const target = Buffer.alloc(40);
    randomNonceInto(target, 8, 24);
    const other = Buffer.alloc(40);
    randomNonceInto(other, 8, 24);
    expect(target.subarray(0, 8).equals(Buffer.alloc(8))).toBe(true);
    expect(target.subarray(32).equals(Buffer.alloc(8))).toBe(true);
    expect(target.subarray(8, 32).equals(other.subarray(8, 32))).toBe(false);
    const large = Buffer.alloc(5002);
    randomNonceInto(large, 1, 5000);
    expect(large[0]).toBe(0);
    expect(large[5001]).toBe(0);
  });
});
