import { describe, expect, it } from 'vitest';
import { sameJson } from './json-equal.js';

describe('sameJson', () => {
  it('compares as JSON would write the values', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, gone: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([undefined], [null])).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: [] }, { a: {} })).toBe(false);
    expect(sameJson(null, {})).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
  });

  it('ignores the skipped keys at the top level only', () => {
    const skip = new Set(['status']);
    expect(sameJson({ spec: 1, status: 'a' }, { spec: 1, status: 'b' }, skip)).toBe(true);
    expect(sameJson({ spec: { status: 'a' } }, { spec: { status: 'b' } }, skip)).toBe(false);
  });
});
