import { describe, expect, it } from 'vitest';
import { deepCopy } from './deep-copy.js';

describe('deepCopy', () => {
  it('copies nested objects and arrays so that changing the copy leaves the original alone', () => {
    const original = { metadata: { name: 'a', labels: { x: 'y' } }, data: { k: 'v' }, list: [{ n: 1 }, 2, null, 'three'] };
    const copy = deepCopy(original);
    expect(copy).toEqual(original);
    copy.metadata.labels.x = 'z';
    (copy.list[0] as { n: number }).n = 5;
    copy.list.push(4);
    expect(original).toEqual({ metadata: { name: 'a', labels: { x: 'y' } }, data: { k: 'v' }, list: [{ n: 1 }, 2, null, 'three'] });
  });

  it('keeps a decoded "__proto__" member an own property, and copies other values as structuredClone does', () => {
    const decoded = JSON.parse('{"data":{"__proto__":{"polluted":true}}}') as { data: Record<string, unknown> };
    const copy = deepCopy(decoded);
    expect(Object.keys(copy.data)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(copy.data)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"data":{"__proto__":{"polluted":true}}}');
    const when = new Date(0);
    const bytes = Uint8Array.of(1, 2);
    const other = deepCopy({ when, bytes });
    expect(other.when).not.toBe(when);
    expect(other.when.getTime()).toBe(0);
    expect(other.bytes).not.toBe(bytes);
    expect([...other.bytes]).toEqual([1, 2]);
  });
});
