import { storageVersionHash } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { selectedStorageVersionHash } from './selected-storage-version-hash.js';

describe('selectedStorageVersionHash', () => {
  it('is the discovery hash of the selected version, which changes with the selection', () => {
    expect(selectedStorageVersionHash('apps', 'Deployment', 'v1')).toBe(storageVersionHash('apps', 'v1', 'Deployment'));
    expect(selectedStorageVersionHash('apps', 'Deployment', 'apps/v1')).toBe(storageVersionHash('apps', 'v1', 'Deployment'));
    expect(selectedStorageVersionHash('', 'Pod', 'v1')).toBe(storageVersionHash('', 'v1', 'Pod'));
    expect(selectedStorageVersionHash('example.com', 'Widget', 'v2')).not.toBe(selectedStorageVersionHash('example.com', 'Widget', 'v1'));
  });
});
