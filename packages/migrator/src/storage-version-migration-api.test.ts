import { describe, expect, it } from 'vitest';
import { validateMigrationUpdate, type StorageVersionMigration } from './storage-version-migration-api.js';

const migration = (status: StorageVersionMigration['status'], resource = 'secrets'): StorageVersionMigration => ({
  metadata: { name: 'm' },
  spec: { resource: { group: '', resource } },
  ...(status ? { status } : {}),
});
const condition = (type: string, status: 'True' | 'False') => ({ type, status, reason: 'R', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' });

describe('validateMigrationUpdate', () => {
  it('accepts the normal progression', () => {
    const running = migration({ resourceVersion: '10', conditions: [condition('Running', 'True')] });
    expect(validateMigrationUpdate(running, migration(undefined))).toEqual([]);
    const done = migration({ resourceVersion: '10', conditions: [condition('Running', 'False'), condition('Succeeded', 'True')] });
    expect(validateMigrationUpdate(done, running)).toEqual([]);
  });

  it('refuses a changed spec, a changed or non-integer checkpoint, and impossible condition sets', () => {
    const old = migration({ resourceVersion: '10', conditions: [condition('Succeeded', 'True')] });
    const details = (next: StorageVersionMigration, previous = old) => validateMigrationUpdate(next, previous).map((error) => `${error.field}: ${error.detail}`);
    expect(details(migration(old.status, 'configmaps'))).toEqual(['spec: field is immutable']);
    expect(details(migration({ ...old.status, resourceVersion: '11' }))).toEqual(['status.resourceVersion: field is immutable']);
    expect(details(migration({ resourceVersion: 'x' }), migration(undefined))).toEqual([
      'status.resourceVersion: resource version has to be a non-negative integer',
    ]);
    expect(details(migration({ resourceVersion: '10', conditions: [condition('Succeeded', 'False')] }))).toEqual([
      'status.conditions: Succeeded condition cannot be set to false once it is true',
    ]);
    expect(
      details(migration({ resourceVersion: '10', conditions: [condition('Running', 'True'), condition('Succeeded', 'True'), condition('Failed', 'True')] })),
    ).toEqual([
      'status.conditions: Both success and failed conditions cannot be true at the same time',
      'status.conditions: Running condition cannot be true when success or failed condition is true',
    ]);
  });
});
