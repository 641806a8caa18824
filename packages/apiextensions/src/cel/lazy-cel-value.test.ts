import { isCelList, isCelMap, type CelInput } from '@bufbuild/cel';
import { describe, expect, it } from 'vitest';
import type { SchemaNode } from '../schema/schema-node.js';
import { toCelValue } from './cel-value.js';
import { toLazyCelValue } from './lazy-cel-value.js';
import { evaluateRules } from './evaluate-rules.js';
import { compileRules } from './rule-tree.js';

/** A CEL value as plain data, read through every reader a rule has (get and has of each name, iteration, size). */
function reads(value: CelInput, names: readonly unknown[]): unknown {
  if (isCelMap(value)) {
    return {
      size: value.size,
      get: names.map((name) => reads(value.get(name as string) as CelInput, names)),
      has: names.map((name) => value.has(name as string)),
      entries: [...value.entries()].map(([key, item]) => [key, reads(item as CelInput, names)]),
    };
  }
  if (isCelList(value)) return { size: value.size, items: [...value].map((item) => reads(item as CelInput, names)), at: [-1, 0, 5].map((index) => value.get(index) !== undefined) };
  return value;
}

const schema = {
  type: 'object',
  properties: {
    namespace: { type: 'string' },
    'a.b': { type: 'integer' },
    ratio: { type: 'number' },
    count: { type: 'integer' },
    list: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' }, weight: { type: 'number' } } } },
    open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
    labels: { type: 'object', additionalProperties: { type: 'integer' } },
    nothing: { type: 'object', nullable: true },
  },
  'x-kubernetes-preserve-unknown-fields': true,
} as unknown as SchemaNode;

const names = ['namespace', '__namespace__', 'a.b', 'a__dot__b', 'ratio', 'count', 'list', 'open', 'known', 'extra', 'labels', 'x', 'nothing', 'constructor', 'toString', '__proto__', 'port', 'weight', 1, true];

describe('toLazyCelValue', () => {
  it('reads as toCelValue converts: escaped names, number types, undeclared and inherited names, nulls, nesting', () => {
    const objects = [
      { namespace: 'ns', 'a.b': 3, ratio: 2, count: 2.5, list: [{ port: 80, weight: 1 }, null, { port: 1.5 }], open: { known: 'k', extra: { x: 1 } }, labels: { x: 4, constructor: 5 }, nothing: null },
      // An undeclared key spelled like a declared property's CEL name, before and after it.
      { __namespace__: 'undeclared', namespace: 'declared', a__dot__b: 7 },
      { namespace: 'declared', __namespace__: 'undeclared', extra: [1, 2.5, 'x', true, null, { y: [] }] },
      {},
    ];
    for (const object of objects) expect(reads(toLazyCelValue(object, schema), names)).toEqual(reads(toCelValue(object, schema), names));
    expect(reads(toLazyCelValue([1, { a: 2 }], undefined), names)).toEqual(reads(toCelValue([1, { a: 2 }], undefined), names));
    expect(toLazyCelValue(5, { type: 'number' } as SchemaNode)).toBe(5);
    expect(toLazyCelValue(5, { type: 'integer' } as SchemaNode)).toBe(5n);
    expect(toLazyCelValue(null, schema)).toBeNull();
  });

  it('gives the same rule results and messages as before', () => {
    const rules = compileRules({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [
            { rule: 'self.items.all(i, i.port > 0)', message: 'ports' },
            { rule: "self.items.exists(i, i.name == 'b')" },
            { rule: 'size(self) == 2' },
            { rule: "self.__namespace__ == 'ns'" },
            { rule: 'self.items.filter(i, i.port > 1).size() == self.items.size()', messageExpression: "'filtered ' + string(self.items.size())" },
          ],
          properties: {
            namespace: { type: 'string' },
            items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.port < 100' }] } },
          },
        },
      },
    } as never);
    const good = { spec: { namespace: 'ns', items: [{ name: 'a', port: 10 }, { name: 'b', port: 20 }] } };
    const bad = { spec: { namespace: 'other', items: [{ name: 'a', port: 0 }, { name: 'c', port: 200 }] } };
    expect(evaluateRules(rules.root, good)).toEqual([]);
    expect(evaluateRules(rules.root, bad).map((error) => `${error.field}: ${error.detail}`)).toEqual([
      'spec: ports',
      "spec: failed rule: self.items.exists(i, i.name == 'b')",
      "spec: failed rule: self.__namespace__ == 'ns'",
      'spec: filtered 2',
      'spec.items[1]: failed rule: self.port < 100',
    ]);
  });
});
