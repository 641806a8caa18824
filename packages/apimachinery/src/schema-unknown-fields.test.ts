import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { findUnknownSchemaFields } from './schema-unknown-fields.js';

describe('findUnknownSchemaFields', () => {
  const schema = Type.Object({
    spec: Type.Object({
      known: Type.Optional(Type.String()),
      free: Type.Optional(Type.Unknown()),
      open: Type.Optional(
        Type.Object(
          { typed: Type.Optional(Type.Object({ x: Type.Integer() })) },
          { 'x-kubernetes-preserve-unknown-fields': true },
        ),
      ),
      loose: Type.Optional(Type.Object({}, { additionalProperties: true })),
      map: Type.Optional(Type.Record(Type.String(), Type.Object({ v: Type.String() }))),
      list: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
      template: Type.Optional(
        Type.Object(
          {},
          { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        ),
      ),
      embedded: Type.Optional(
        Type.Object({ spec: Type.Optional(Type.Object({})) }, { 'x-kubernetes-embedded-resource': true }),
      ),
    }),
  });

  it('reports undeclared fields with Kubernetes paths', () => {
    const value = {
      spec: {
        known: 'a',
        unknown: 1,
        free: { anything: [1, { deep: true }] },
        open: { extra: 1, typed: { x: 1, y: 2 } },
        loose: { whatever: 1 },
        map: { k: { v: 'x', w: 'y' } },
        list: [{ name: 'a' }, { name: 'b', bad: true }],
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', nope: 1 }, spec: { any: 1 } },
        embedded: { apiVersion: 'v1', kind: 'X', metadata: {}, spec: { z: 1 }, other: 1 },
      },
      status: {},
    };
    expect(findUnknownSchemaFields(value, schema)).toEqual([
      'spec.unknown',
      'spec.open.typed.y',
      'spec.map[k].w',
      'spec.list[1].bad',
      'spec.template.metadata.nope',
      'spec.embedded.spec.z',
      'spec.embedded.other',
      'status',
    ]);
  });

  it('removes them when asked', () => {
    const value = { spec: { known: 'a', unknown: 1, list: [{ name: 'a', bad: 1 }] } };
    expect(findUnknownSchemaFields(value, schema, { remove: true })).toEqual([
      'spec.unknown',
      'spec.list[0].bad',
    ]);
    expect(value).toEqual({ spec: { known: 'a', list: [{ name: 'a' }] } });
  });

  it('treats a root as a Kubernetes object when asked', () => {
    const root = Type.Object({ spec: Type.Optional(Type.Object({})) });
    const value = {
      apiVersion: 'v1',
      kind: 'X',
      metadata: { name: 'a', labels: { a: 'b' }, bogus: 1 },
      spec: {},
    };
    expect(findUnknownSchemaFields(value, root)).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(findUnknownSchemaFields(value, root, { isRoot: true })).toEqual(['metadata.bogus']);
  });
});
