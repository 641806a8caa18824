import { describe, expect, it } from 'vitest';
import { RevisionBatch } from './revision-batch.js';

describe('RevisionBatch', () => {
  it('reads once for the callers of one turn, after all of them asked', async () => {
    let revision = 1;
    let reads = 0;
    const batch = new RevisionBatch(() => {
      reads++;
      return Promise.resolve(revision);
    });
    const first = batch.next();
    const second = batch.next();
    // A commit after both asked, before the read: both must see it (the read comes after them).
    revision = 2;
    expect(await Promise.all([first, second])).toEqual([2, 2]);
    expect(reads).toBe(1);
  });

  it('makes a new read for a caller that asks once the read has been made', async () => {
    let revision = 1;
    let reads = 0;
    const batch = new RevisionBatch(() => {
      reads++;
      return Promise.resolve(revision);
    });
    expect(await batch.next()).toBe(1);
    revision = 5;
    expect(await batch.next()).toBe(5);
    expect(reads).toBe(2);
  });

  it('fails every caller of the turn when the read fails, and reads again afterwards', async () => {
    let fail = true;
    const batch = new RevisionBatch(() => {
      if (fail) throw new Error('storage closed');
      return Promise.resolve(3);
    });
    const results = await Promise.allSettled([batch.next(), batch.next()]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batch.next()).toBe(3);
  });
});
