import { describe, expect, it } from 'vitest';
import { applyMergePatch } from './merge-patch.js';

describe('applyMergePatch', () => {
  it('merges maps recursively, deletes nulls and replaces lists', () => {
    const document = { spec: { a: 1, b: { c: 2, d: 3 }, list: [1, 2] } };
    expect(applyMergePatch(document, { spec: { a: null, b: { c: 5 }, list: [3], e: { f: null } } })).toEqual({
      spec: { b: { c: 5, d: 3 }, list: [3], e: {} },
    });
    expect(document.spec.a).toBe(1);
  });

  it('rejects null and scalar bodies with 400 Invalid JSON Patch', () => {
    for (const body of [null, 3, 'x']) {
      expect(() => applyMergePatch({}, body)).toThrow('Invalid JSON Patch');
    }
  });

  it('lets an array body replace the document', () => {
    expect(applyMergePatch({ a: 1 }, [1])).toEqual([1]);
  });
});
