import { parse, plan, type CelInput } from '@bufbuild/cel';
import { describe, expect, it } from 'vitest';
import { ruleEnvironment } from './cel-environment.js';
import { toCelValue } from './cel-value.js';
import { compileFastRule } from './fast-path.js';

const schema = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    value: { type: 'string' },
    port: { type: 'integer' },
    ratio: { type: 'number' },
    namespace: { type: 'string' },
    list: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, kind: { type: 'string' } } } },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

const objects: Record<string, unknown>[] = [
  { type: 'PathPrefix', value: '/a', port: 80, ratio: 0.5, namespace: 'ns', list: [{ name: 'a', kind: 'K' }, { name: 'b' }], tags: { x: 'y' } },
  { type: 'Exact', value: 'no-slash', port: 0, list: [{ name: 'a' }, { name: 'a' }], tags: {} },
  { type: 'RegularExpression', value: '/ü/./x', list: [] },
  {},
];

const rules = [
  "self.type == 'PathPrefix'",
  "(self.type in ['Exact','PathPrefix']) ? self.value.startsWith('/') : true",
  "!self.value.contains('/./') && self.value.endsWith('x') || has(self.port)",
  "self.value.matches('^/[a-z]+$')",
  'self.port > 0 && self.port <= 65535',
  'self.port == 80.0',
  'self.ratio < 1.0',
  "self.__namespace__ == 'ns'",
  'self.value.size() < 5 && size(self.list) >= 1',
  'self.list.all(l, has(l.kind))',
  'self.list.exists(l, l.name == "b")',
  'self.list.exists_one(l, l.name == "a")',
  'self.list.filter(l, l.name == "a").size() <= 1',
  'self.list.map(l, l.name).size() == 2',
  'self.list.all(a, self.list.exists_one(b, a.name == b.name))',
  "self.list[0].name == 'a' && self.list[1].kind == 'K'",
  "'x' in self.tags && self.tags['x'] == 'y'",
  "self.type + '/' + self.value == 'PathPrefix//a'",
  'self.port + 1 > 80',
  'self.missing == 1 || true',
  'self == self',
  'self.port in [80, 443]',
  "self.port in ['80']",
  "!(self.type in ['Exact'])",
  "size(self.list + self.list) == 4 && !('c' in self.list.map(l, l.name))",
  'self.list.all(a, self.list.all(b, a.name == b.name || a.name != b.name))',
];

describe('the fast path of rule expressions', () => {
  it('vouches only for rules the interpreter also finds true, and takes the true ones itself', () => {
    const environment = ruleEnvironment();
    const fellBack = new Set<string>();
    let vouched = 0;
    for (const rule of rules) {
      const expr = parse(rule).expr;
      if (expr === undefined) throw new Error(rule);
      const fast = compileFastRule(expr);
      const interpreted = plan(environment, expr);
      for (const object of objects) {
        const bindings: Record<string, CelInput> = { self: toCelValue(object, schema) };
        const expected = interpreted(bindings);
        if (fast?.(bindings) === true) {
          vouched++;
          expect({ rule, object, result: expected }).toEqual({ rule, object, result: true });
        } else if (expected === true) fellBack.add(rule);
      }
    }
    expect(vouched).toBeGreaterThan(20);
    // Heterogeneous numbers, an error absorbed by ||, map equality: the interpreter's business.
    expect([...fellBack]).toEqual(['self.port == 80.0', 'self.missing == 1 || true', 'self == self']);
  });

  it('leaves out expressions using what it does not implement', () => {
    for (const rule of ["duration(self.value) > duration('1s')", 'self.value.split("/").size() > 1', 'int(self.value) > 1', 'self.port * 2 > 1'])
      expect(compileFastRule(parse(rule).expr!)).toBeUndefined();
  });
});
