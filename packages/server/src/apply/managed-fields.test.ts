import { describe, expect, it } from 'vitest';
import { FieldSet } from './field-set.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentity,
  ManagedFieldsError,
  type ManagedFields,
  type ManagerEntry,
} from './managed-fields.js';

function entry(manager: string, operation: 'Apply' | 'Update', time: string, field = manager, apiVersion = 'v1'): ManagerEntry {
  return { manager, operation, apiVersion, time, fields: FieldSet.of([`f:${field}`]) };
}

function managedOf(...entries: ManagerEntry[]): ManagedFields {
  return new Map(entries.map((item) => [managerIdentity(item), item]));
}

describe('managedFields entries', () => {
  it('identifies Apply entries without apiVersion and Update entries with it', () => {
    expect(managerIdentity({ manager: 'a', operation: 'Apply', apiVersion: 'v1' })).toBe('{"manager":"a","operation":"Apply"}');
    expect(managerIdentity({ manager: 'a', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' })).toBe(
      '{"manager":"a","operation":"Update","apiVersion":"apps/v1","subresource":"status"}',
    );
  });

  it('encodes in upstream key order and sorts by operation, time, manager', () => {
    const encoded = encodeManagedFields(
      managedOf(
        entry('z', 'Update', '2024-01-01T00:00:01Z'),
        entry('b', 'Update', '2024-01-01T00:00:00Z'),
        entry('a', 'Update', '2024-01-01T00:00:00Z'),
        entry('late', 'Apply', '2025-01-01T00:00:00Z'),
        { ...entry('empty', 'Update', '2020-01-01T00:00:00Z'), fields: FieldSet.empty() },
      ),
    );
    expect(encoded.map((item) => item.manager)).toEqual(['late', 'a', 'b', 'z']);
    expect(Object.keys(encoded[0] ?? {})).toEqual(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
    expect(decodeManagedFields(encoded).size).toBe(4);
  });

  it('rejects entries upstream cannot decode and recognises resets', () => {
    expect(() => decodeManagedFields([{ manager: 'a', operation: 'Patch', apiVersion: 'v1', fieldsType: 'FieldsV1' }])).toThrow(ManagedFieldsError);
    expect(() => decodeManagedFields([{ manager: 'a', operation: 'Update', fieldsType: 'FieldsV1' }])).toThrow(ManagedFieldsError);
    expect(() => decodeManagedFields([{ manager: 'a', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV2' }])).toThrow(ManagedFieldsError);
    expect(isResetManagedFields([])).toBe(true);
    expect(isResetManagedFields([{}])).toBe(true);
    expect(isResetManagedFields(undefined)).toBe(false);
    expect(isResetManagedFields([{ manager: 'a' }])).toBe(false);
  });

  it('caps Update entries at 10, merging the oldest into ancient-changes', () => {
    const entries = Array.from({ length: 12 }, (_, index) =>
      entry(`m${index}`, 'Update', `2024-01-01T00:00:${String(10 + index)}Z`),
    );
    const managed = managedOf(...entries, entry('applier', 'Apply', '2020-01-01T00:00:00Z'));
    capUpdateManagers(managed);
    const updates = [...managed.values()].filter((item) => item.operation === 'Update');
    expect(updates).toHaveLength(10);
    const ancient = updates.find((item) => item.manager === 'ancient-changes');
    expect(ancient?.fields.paths()).toEqual([['f:m0'], ['f:m1'], ['f:m2']]);
    expect(ancient?.time).toBe('2024-01-01T00:00:12Z');
    expect([...managed.values()].some((item) => item.manager === 'applier')).toBe(true);
  });
});
