import { describe, expect, it } from 'vitest';
import { jsonCopy } from './json-copy.js';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('jsonCopy', () => {
  it('makes what a JSON round trip makes of plain data', () => {
    const values: unknown[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { b: '1', a: '2' } }, data: { payload: 'x'.repeat(2048) } },
      { b: 1, 2: 'two', a: [1, 'x', null, true, { c: [] }], 1: 'one', nested: { deep: { deeper: [[1], [2, [3]]] } } },
      { dropped: undefined, fn: () => 1, sym: Symbol('s'), kept: 0 },
      [undefined, () => 1, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY, -0, 1.5, 'é€😀', '\ud800'],
      { zero: -0, big: Number.MAX_SAFE_INTEGER, tiny: 5e-324, nan: Number.NaN },
      Object.assign(Object.create(null) as object, { a: 1 }),
      // eslint-disable-next-line no-sparse-arrays
      [1, , 3],
      'text',
      7,
      null,
      true,
    ];
    for (const value of values) {
      const copied = jsonCopy(value);
      expect(copied).toStrictEqual(roundTrip(value));
      expect(JSON.stringify(copied)).toBe(JSON.stringify(value));
    }
    expect(Object.is((jsonCopy({ zero: -0 }) as { zero: number }).zero, 0)).toBe(true);
    expect(Object.is((jsonCopy([-0]) as number[])[0], 0)).toBe(true);
  });

  it('keeps "__proto__" an own member, as JSON.parse does', () => {
    const value = roundTrip({}) as Record<string, unknown>;
    Object.defineProperty(value, '__proto__', { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
    const copied = jsonCopy(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(['__proto__']);
    expect(JSON.stringify(copied)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('shares no object or array with the original', () => {
    const value = { metadata: { labels: { a: 'b' } }, items: [{ x: 1 }] };
    const copied = jsonCopy(value)!;
    expect(copied.metadata).not.toBe(value.metadata);
    expect(copied.metadata.labels).not.toBe(value.metadata.labels);
    expect(copied.items).not.toBe(value.items);
    expect(copied.items[0]).not.toBe(value.items[0]);
  });

  it('gives up (undefined) on what a copy would not make as JSON does', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    for (const value of [{ when: new Date(0) }, { map: new Map() }, { point: new Point(1) }, { bytes: new Uint8Array(2) }, { n: 1n }, [{ toJSON: () => 'x' }], undefined, () => 1]) {
      expect(jsonCopy(value)).toBeUndefined();
    }
  });
});
