import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { applySchemaDefaults } from './schema-defaults.js';

describe('applySchemaDefaults', () => {
  const schema = Type.Object({
    spec: Type.Optional(
      Type.Object({
        replicas: Type.Optional(Type.Integer({ default: 1 })),
        strategy: Type.Optional(
          Type.Object({ type: Type.Optional(Type.String({ default: 'RollingUpdate' })) }, { default: {} }),
        ),
        template: Type.Optional(
          Type.Object({ restartPolicy: Type.Optional(Type.String({ default: 'Always' })) }),
        ),
        ports: Type.Optional(
          Type.Array(Type.Object({ protocol: Type.Optional(Type.String({ default: 'TCP' })) })),
        ),
        limits: Type.Optional(
          Type.Record(Type.String(), Type.Object({ unit: Type.Optional(Type.String({ default: 'm' })) })),
        ),
        tags: Type.Optional(Type.Array(Type.String(), { default: ['a'] })),
        note: Type.Optional(Type.String({ default: 'x', nullable: true })),
      }),
    ),
  });

  it('fills missing fields and recurses into objects, arrays and maps', () => {
    const value = { spec: { ports: [{}, { protocol: 'UDP' }], limits: { cpu: {} } } };
    applySchemaDefaults(value, schema);
    expect(value.spec).toEqual({
      replicas: 1,
      strategy: { type: 'RollingUpdate' },
      ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }],
      limits: { cpu: { unit: 'm' } },
      tags: ['a'],
      note: 'x',
    });
  });

  it('does not create missing parents', () => {
    const value: Record<string, unknown> = {};
    applySchemaDefaults(value, schema);
    expect(value).toEqual({});
    const withSpec = { spec: {} as Record<string, unknown> };
    applySchemaDefaults(withSpec, schema);
    expect(withSpec.spec['template']).toBeUndefined();
  });

  it('replaces null only where the schema is not nullable, and copies defaults', () => {
    const first = { spec: { replicas: null, note: null } };
    applySchemaDefaults(first, schema);
    expect(first.spec).toMatchObject({ replicas: 1, note: null });
    const second = { spec: {} as { tags?: string[] } };
    applySchemaDefaults(second, schema);
    second.spec.tags?.push('b');
    const third = { spec: {} as { tags?: string[] } };
    applySchemaDefaults(third, schema);
    expect(third.spec.tags).toEqual(['a']);
  });

  it('treats a type list with null as nullable, and defaults properties of branches after a first use', () => {
    const listed = { type: 'object', properties: { a: { type: ['string', 'null'], default: 'A' }, b: { type: ['string'], default: 'B' } } };
    const value: Record<string, unknown> = { a: null, b: null };
    applySchemaDefaults(value, listed);
    expect(value).toEqual({ a: null, b: 'B' });
    const union = { anyOf: [{ type: 'object', properties: { c: { type: 'string', default: 'C' } } }] };
    const first: Record<string, unknown> = {};
    applySchemaDefaults(first, union);
    const second: Record<string, unknown> = { c: 'kept' };
    applySchemaDefaults(second, union);
    expect([first, second]).toEqual([{ c: 'C' }, { c: 'kept' }]);
  });

  it('follows allOf (Type.Intersect)', () => {
    const intersect = Type.Intersect([
      Type.Object({ a: Type.Optional(Type.String({ default: 'A' })) }),
      Type.Object({ b: Type.Optional(Type.String({ default: 'B' })) }),
    ]);
    const value = {};
    applySchemaDefaults(value, intersect);
    expect(value).toEqual({ a: 'A', b: 'B' });
  });

  it('turns nulls into what Go decodes them to, unless the schema is nullable', () => {
    const nulls = Type.Object({
      name: Type.Optional(Type.String()),
      note: Type.Optional(Type.String({ nullable: true })),
      labels: Type.Optional(Type.Record(Type.String(), Type.String())),
      counts: Type.Optional(Type.Record(Type.String(), Type.Integer())),
      tags: Type.Optional(Type.Array(Type.String())),
      items: Type.Optional(Type.Array(Type.Object({ size: Type.Optional(Type.Integer({ default: 3 })) }))),
      free: Type.Optional(Type.Unknown()),
    });
    const value: Record<string, unknown> = {
      name: null,
      note: null,
      labels: { a: null, b: 'x' },
      counts: { c: null },
      tags: ['t', null],
      items: [null],
      free: { inner: null },
    };
    applySchemaDefaults(value, nulls);
    expect(value).toEqual({
      note: null,
      labels: { a: '', b: 'x' },
      counts: { c: 0 },
      tags: ['t', ''],
      // The zero item is then defaulted like any other.
      items: [{ size: 3 }],
      free: { inner: null },
    });
    expect('name' in value).toBe(false);
  });
});
