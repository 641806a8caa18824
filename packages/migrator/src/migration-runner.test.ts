import { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { isSkipped, migrationWrite } from './migration-runner.js';
import type { PageItem } from './page-reader.js';

const item: PageItem = {
  name: 'a',
  namespace: 'ns',
  uid: 'u-1',
  resourceVersion: '12',
  body: Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"u-1","resourceVersion":"12"},"data":{"k":"v"}}'),
};

describe('migrationWrite', () => {
  it('patches only the UID and resourceVersion listed, as a merge patch', () => {
    const request = migrationWrite('/api/v1/namespaces/ns/configmaps/a', item, true);
    expect(request).toMatchObject({ method: 'PATCH', path: '/api/v1/namespaces/ns/configmaps/a', contentType: 'application/merge-patch+json' });
    expect(JSON.parse(request.body?.toString() ?? '') as unknown).toEqual({ metadata: { uid: 'u-1', resourceVersion: '12' } });
  });

  it('writes the patch exactly as JSON.stringify would, escapes included, and leaves out a UID not listed', () => {
    const odd = { ...item, uid: 'u"\\1', resourceVersion: '7' };
    expect(migrationWrite('/p/a', odd, true).body?.toString()).toBe(JSON.stringify({ metadata: { uid: 'u"\\1', resourceVersion: '7' } }));
    const { uid: _uid, ...withoutUid } = item;
    expect(migrationWrite('/p/a', { ...withoutUid, uid: undefined }, true).body?.toString()).toBe('{"metadata":{"resourceVersion":"12"}}');
  });

  it('puts the object as listed where the resource offers no patch', () => {
    expect(migrationWrite('/p/a', item, false)).toEqual({ method: 'PUT', path: '/p/a', body: item.body });
  });
});

describe('isSkipped', () => {
  const invalid = (field: string) =>
    StatusError.of(422, 'Invalid', `ConfigMap "a" is invalid: ${field}: Invalid value: "u-2": field is immutable`, {
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "u-2": field is immutable', field }],
    });

  it('skips an object changed (409), deleted (404) or deleted and created again (a 422 on metadata.uid)', () => {
    expect(isSkipped(StatusError.conflictModified({ group: '', resource: 'configmaps' }, 'a'))).toBe(true);
    expect(isSkipped(StatusError.notFound({ group: '', resource: 'configmaps' }, 'a'))).toBe(true);
    expect(isSkipped(invalid('metadata.uid'))).toBe(true);
  });

  it('does not skip other refusals, which fail the migration', () => {
    expect(isSkipped(invalid('data'))).toBe(false);
    expect(isSkipped(StatusError.forbidden({ group: '', resource: 'configmaps' }, 'a', 'no'))).toBe(false);
    expect(isSkipped(new Error('socket hang up'))).toBe(false);
  });
});
