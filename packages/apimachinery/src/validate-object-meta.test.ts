import { describe, expect, it } from 'vitest';
import { validateObjectMeta } from './validate-object-meta.js';
import { nameIsDNSLabel } from './name-validation.js';

describe('validateObjectMeta', () => {
  it('accepts a valid namespaced object', () => {
    expect(
      validateObjectMeta(
        {
          name: 'web',
          namespace: 'default',
          labels: { app: 'web', 'example.com/tier': '' },
          annotations: { 'A/B': 'x' },
        },
        { namespaced: true },
      ),
    ).toEqual([]);
  });

  it('requires name or generateName and a namespace', () => {
    expect(validateObjectMeta({}, { namespaced: true })).toEqual([
      { field: 'metadata.name', type: 'FieldValueRequired', detail: 'name or generateName is required' },
      { field: 'metadata.namespace', type: 'FieldValueRequired', detail: '' },
    ]);
    expect(validateObjectMeta({ generateName: 'web-', namespace: 'ns' }, { namespaced: true })).toEqual([]);
  });

  it('forbids a namespace on cluster-scoped kinds', () => {
    expect(validateObjectMeta({ name: 'n', namespace: 'x' }, { namespaced: false })).toEqual([
      { field: 'metadata.namespace', type: 'FieldValueForbidden', detail: 'not allowed on this type' },
    ]);
  });

  it('validates names with the given validator', () => {
    const errors = validateObjectMeta({ name: 'a.b' }, { namespaced: false, nameValidator: nameIsDNSLabel });
    expect(errors).toEqual([
      { field: 'metadata.name', type: 'FieldValueInvalid', value: 'a.b', detail: 'must not contain dots' },
    ]);
    expect(validateObjectMeta({ name: 'Bad_Name' }, { namespaced: false })[0]?.detail).toMatch(
      /^a lowercase RFC 1123 subdomain/,
    );
    expect(validateObjectMeta({ generateName: 'Bad-' }, { namespaced: false })[0]?.field).toBe(
      'metadata.generateName',
    );
  });

  it('validates label keys and values and annotation keys', () => {
    const errors = validateObjectMeta(
      { name: 'n', labels: { 'bad key': 'ok', good: 'bad value' }, annotations: { '-x': 'v' } },
      { namespaced: false },
    );
    expect(errors.map((error) => [error.field, error.value])).toEqual([
      ['metadata.labels', 'bad key'],
      ['metadata.labels', 'bad value'],
      ['metadata.annotations', '-x'],
    ]);
  });

  it('limits the total annotation size to 256 KiB', () => {
    const ok = validateObjectMeta(
      { name: 'n', annotations: { a: 'x'.repeat(256 * 1024 - 1) } },
      { namespaced: false },
    );
    expect(ok).toEqual([]);
    const errors = validateObjectMeta(
      { name: 'n', annotations: { a: 'x'.repeat(256 * 1024) } },
      { namespaced: false },
    );
    expect(errors).toEqual([
      {
        field: 'metadata.annotations',
        type: 'FieldValueTooLong',
        detail: 'may not be more than 262144 bytes',
      },
    ]);
  });

  it('checks generation, finalizers and owner references', () => {
    const errors = validateObjectMeta(
      {
        name: 'n',
        generation: -1,
        finalizers: ['example.com/ok', 'bad/finalizer/x'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: '', uid: 'u' }],
      },
      { namespaced: false },
    );
    expect(errors.map((error) => error.field)).toEqual([
      'metadata.generation',
      'metadata.finalizers[1]',
      'metadata.ownerReferences[0].name',
    ]);
  });

  it('reports members of the wrong type instead of failing on them (objects need not come from JSON)', () => {
    const check = (meta: Record<string, unknown>) =>
      validateObjectMeta(meta as never, { namespaced: false }).map((error) => `${error.field}: ${error.detail}`);
    expect(check({ name: 1 })).toEqual(['metadata.name: must be a string']);
    expect(check({ name: 'n', generateName: ['g-'] })).toEqual(['metadata.generateName: must be a string']);
    expect(check({ name: 'n', finalizers: 'x' })).toEqual(['metadata.finalizers: must be a list']);
    expect(check({ name: 'n', ownerReferences: {} })).toEqual(['metadata.ownerReferences: must be a list']);
    expect(check({ name: 'n', finalizers: ['ok', 1] })).toEqual(['metadata.finalizers[1]: must be a string']);
    // A null owner reference is an empty one, as Go decodes it.
    expect(check({ name: 'n', ownerReferences: [null] })).toEqual([
      'metadata.ownerReferences[0].apiVersion: version must not be empty',
      'metadata.ownerReferences[0].kind: kind must not be empty',
      'metadata.ownerReferences[0].name: name must not be empty',
      'metadata.ownerReferences[0].uid: uid must not be empty',
    ]);
  });
});
