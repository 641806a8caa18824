import { Type, kindSchema, validateAgainstSchema } from './index.js';
import { describe, expect, it } from 'vitest';
import { withFieldDescriptions } from './field-descriptions.js';

/** The value at `keys` under `schema` (e.g. `['properties', 'data', 'description']`). */
const at = (schema: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], schema);
const P = 'properties';

const shared = Type.Object({ name: Type.Optional(Type.String()) });
const base = () =>
  kindSchema({
    version: 'v1',
    kind: 'Thing',
    spec: Type.Object({ size: Type.Optional(Type.Integer()), ref: Type.Optional(shared) }),
    properties: {
      data: Type.Optional(Type.Record(Type.String(), Type.String())),
      rules: Type.Optional(Type.Array(Type.Object({ verbs: Type.Array(Type.String()) }))),
      refs: Type.Optional(Type.Array(shared)),
    },
  });

describe('withFieldDescriptions', () => {
  it('sets the description of each field in the table', () => {
    const schema = withFieldDescriptions(base(), {
      data: 'Data contains the data.',
      spec: 'The spec.',
      'spec.size': 'How big.',
      'spec.ref.name': 'Name of the referent.',
      'rules[]': 'A rule.',
      'rules[].verbs': 'Verbs of the rule.',
    });
    expect(at(schema, P, 'data', 'description')).toBe('Data contains the data.');
    expect(at(schema, P, 'spec', 'description')).toBe('The spec.');
    expect(at(schema, P, 'spec', P, 'size', 'description')).toBe('How big.');
    expect(at(schema, P, 'spec', P, 'ref', P, 'name', 'description')).toBe('Name of the referent.');
    expect(at(schema, P, 'rules', 'items', 'description')).toBe('A rule.');
    expect(at(schema, P, 'rules', 'items', P, 'verbs', 'description')).toBe('Verbs of the rule.');
    expect(at(schema, P, 'rules', 'description')).toBeUndefined();
  });

  it('leaves the input schema and shared subschemas unchanged', () => {
    const input = base();
    const before = JSON.stringify(input);
    const schema = withFieldDescriptions(input, {
      'spec.ref.name': 'Name of the referent.',
      'refs[].name': 'Another text.',
    });
    expect(JSON.stringify(input)).toBe(before);
    expect(at(shared, P, 'name', 'description')).toBeUndefined();
    expect(at(schema, P, 'refs', 'items', P, 'name', 'description')).toBe('Another text.');
    expect(at(schema, P, 'spec', P, 'ref', P, 'name', 'description')).toBe('Name of the referent.');
  });

  it('keeps what the schema accepts and rejects', () => {
    const plain = base();
    const described = withFieldDescriptions(plain, {
      data: 'Data.',
      'spec.size': 'Size.',
      'rules[].verbs': 'Verbs.',
    });
    const good = {
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: {},
      spec: { size: 1 },
      rules: [{ verbs: ['get'] }],
    };
    const bad = { ...good, spec: { size: 'one' }, rules: [{}] };
    expect(validateAgainstSchema(good, described)).toEqual([]);
    const errors = validateAgainstSchema(bad, described);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors).toEqual(validateAgainstSchema(bad, plain));
  });

  it('throws on a path the schema does not have', () => {
    expect(() => withFieldDescriptions(base(), { datta: 'typo' })).toThrow(/no property "datta"/);
    expect(() => withFieldDescriptions(base(), { 'spec.missing': 'x' })).toThrow(/spec\.missing/);
    expect(() => withFieldDescriptions(base(), { 'rules[].nouns': 'x' })).toThrow(/no property "nouns"/);
    expect(() => withFieldDescriptions(base(), { 'data[]': 'x' })).toThrow(/not an array/);
    expect(() => withFieldDescriptions(base(), { 'spec.size.bits': 'x' })).toThrow(/no property "bits"/);
  });
});
