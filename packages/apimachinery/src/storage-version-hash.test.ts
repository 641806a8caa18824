import { describe, expect, it } from 'vitest';
import { storageVersionHash } from './storage-version-hash.js';

describe('storageVersionHash', () => {
  it('matches the upstream test vectors', () => {
    expect(storageVersionHash('', 'v1', 'Pod')).toBe('xPOwRZ+Yhw8=');
    expect(storageVersionHash('apps', 'v1', 'Deployment')).toBe('8aSe+NMegvE=');
  });
  it('is 12 characters and depends on every part', () => {
    const hash = storageVersionHash('apps', 'v1', 'StatefulSet');
    expect(hash).toHaveLength(12);
    expect(storageVersionHash('apps', 'v2', 'StatefulSet')).not.toBe(hash);
  });
});
