import { celList, celMap, celUint, isCelList, isCelMap, type CelList, type CelMap, type CelValue } from '@bufbuild/cel';
import { describe, expect, it } from 'vitest';
import { jsonCelList, jsonCelMap, jsonListItems } from './json-containers.js';

const fields = (): Map<string, CelValue> =>
  new Map<string, CelValue>([
    ['name', 'a'],
    ['port', 80n],
    ['ratio', 0.5],
    ['empty', null],
    ['flag', false],
    ['nested', celMap(new Map([['x', 'y']]))],
    ['1', 'one'],
  ]);

/** Everything a reader can ask of a map, as plain data. */
function mapReads(map: CelMap): unknown {
  const keys: unknown[] = ['name', 'port', 'empty', 'flag', 'missing', '1', 1n, 1, 1.5, true, celUint(1n)];
  const visited: unknown[] = [];
  map.forEach((value, key, self) => visited.push([key, value, self === map]));
  return {
    size: map.size,
    get: keys.map((key) => map.get(key as string)),
    has: keys.map((key) => map.has(key as string)),
    keys: [...map.keys()],
    values: [...map.values()],
    entries: [...map.entries()],
    iterated: [...map],
    visited,
  };
}

function listReads(list: CelList): unknown {
  const indices = [-1, 0, 1, 2, 3, 10];
  const fractional = (() => {
    try {
      return list.get(0.5);
    } catch (error) {
      return `throws ${(error as Error).message}`;
    }
  })();
  return { size: list.size, get: indices.map((index) => list.get(index)), values: [...list.values()], iterated: [...list], fractional };
}

describe('JSON-backed CEL containers', () => {
  it('are CEL maps and lists that answer every read as the library’s own over the same contents', () => {
    const ours = jsonCelMap(fields());
    expect(isCelMap(ours)).toBe(true);
    expect(isCelList(ours)).toBe(false);
    expect(mapReads(ours)).toEqual(mapReads(celMap(fields())));
    const items: CelValue[] = ['a', 1n, null, celList(['x'])];
    const list = jsonCelList([...items]);
    expect(isCelList(list)).toBe(true);
    expect(isCelMap(list)).toBe(false);
    expect(listReads(list)).toEqual(listReads(celList([...items])));
  });

  it('give a list’s own items to the fast path without a copy, and nothing for other lists', () => {
    const items: CelValue[] = ['a', 'b'];
    expect(jsonListItems(jsonCelList(items))).toBe(items);
    expect(jsonListItems(celList(items))).toBeUndefined();
  });
});
