import { describe, expect, it } from 'vitest';
import { setCommonEncodingVersion } from './common-encoding-version.js';
import { validateStorageVersion, type StorageVersion } from './storage-version-api.js';

const entry = (id: string, encodingVersion: string) => ({
  apiServerID: id,
  encodingVersion,
  decodableVersions: ['autoscaling/v1', 'autoscaling/v2'],
  servedVersions: ['autoscaling/v1', 'autoscaling/v2'],
});
const sv = (entries: ReturnType<typeof entry>[], status: StorageVersion['status'] = {}): StorageVersion => ({
  metadata: { name: 'autoscaling.horizontalpodautoscalers', generation: 1 },
  status: { ...status, storageVersions: entries },
});

describe('setCommonEncodingVersion', () => {
  it('sets the common version and a True condition when all entries agree', () => {
    const result = setCommonEncodingVersion(sv([entry('a', 'autoscaling/v2'), entry('b', 'autoscaling/v2')]), new Date('2026-01-01T00:00:00Z'));
    expect(result.status?.commonEncodingVersion).toBe('autoscaling/v2');
    expect(result.status?.conditions).toEqual([
      {
        type: 'AllEncodingVersionsEqual',
        status: 'True',
        observedGeneration: 1,
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: 'CommonEncodingVersionSet',
        message: 'Common encoding version set',
      },
    ]);
  });

  it('unsets it with False/CommonEncodingVersionUnset while versions differ', () => {
    const result = setCommonEncodingVersion(sv([entry('a', 'autoscaling/v1'), entry('b', 'autoscaling/v2')]));
    expect(result.status).not.toHaveProperty('commonEncodingVersion');
    expect(result.status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'CommonEncodingVersionUnset', message: 'Common encoding version unset' });
  });

  it('moves lastTransitionTime only on a flip or a change of value', () => {
    const first = setCommonEncodingVersion(sv([entry('a', 'v1')]), new Date('2026-01-01T00:00:00Z'));
    const same = setCommonEncodingVersion(first, new Date('2026-01-02T00:00:00Z'));
    expect(same.status?.conditions?.[0]?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    const changed = setCommonEncodingVersion({ ...same, status: { ...same.status, storageVersions: [entry('a', 'v2')] } }, new Date('2026-01-03T00:00:00Z'));
    expect(changed.status?.conditions?.[0]?.lastTransitionTime).toBe('2026-01-03T00:00:00Z');
  });
});

describe('validateStorageVersion', () => {
  it('accepts a computed object', () => {
    expect(validateStorageVersion(setCommonEncodingVersion(sv([entry('apiserver-abc', 'autoscaling/v2')])))).toEqual([]);
  });

  it('reports upstream messages', () => {
    const bad: StorageVersion = {
      metadata: { name: 'nodots' },
      status: {
        storageVersions: [{ apiServerID: 'a', encodingVersion: 'v3', decodableVersions: ['v1'], servedVersions: ['v2'] }],
        commonEncodingVersion: 'v1',
        conditions: [{ type: 'X', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: '', message: '' }],
      },
    };
    const details = validateStorageVersion(bad).map((e) => e.detail);
    expect(details).toContain('name must be in the form of <group>.<resource>');
    expect(details).toContain('decodableVersions must include encodingVersion v3');
    expect(details).toContain('individual served version : v2 must be included in decodableVersions : ["v1"]');
    expect(details).toContain('reason cannot be empty');
    expect(details).toContain('message cannot be empty');
    expect(details.some((d) => d.includes('common encoding version'))).toBe(true);
  });
});
