import { describe, expect, expectTypeOf, it } from 'vitest';
import { Type, type Static } from '@sinclair/typebox';
import { kindListSchema, kindSchema, listMetaSchema, objectMetaSchema } from './kind-schema.js';
import type { KubeObject } from './meta-types.js';

describe('objectMetaSchema', () => {
  it('declares every ObjectMeta field', () => {
    expect(Object.keys(objectMetaSchema.properties).sort()).toEqual(
      [
        'annotations',
        'creationTimestamp',
        'deletionGracePeriodSeconds',
        'deletionTimestamp',
        'finalizers',
        'generateName',
        'generation',
        'labels',
        'managedFields',
        'name',
        'namespace',
        'ownerReferences',
        'resourceVersion',
        'selfLink',
        'uid',
      ].sort(),
    );
    expect(objectMetaSchema.required ?? []).toEqual([]);
    expect(objectMetaSchema.properties.ownerReferences['x-kubernetes-list-map-keys']).toEqual(['uid']);
    expect(Object.keys(listMetaSchema.properties).sort()).toEqual([
      'continue',
      'remainingItemCount',
      'resourceVersion',
      'selfLink',
    ]);
  });
});

describe('kindSchema', () => {
  const schema = kindSchema({
    group: 'example.com',
    version: 'v1',
    kind: 'Widget',
    spec: Type.Object({
      size: Type.Integer({ default: 1 }),
      ports: Type.Optional(
        Type.Array(Type.Object({ name: Type.String(), port: Type.Integer() }), {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-patch-merge-key': 'name',
          'x-kubernetes-patch-strategy': 'merge',
        }),
      ),
    }),
    status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
    properties: { data: Type.Optional(Type.Record(Type.String(), Type.String())) },
  });

  it('builds apiVersion, kind, metadata, spec, status and extra properties', () => {
    expect(Object.keys(schema.properties)).toEqual([
      'apiVersion',
      'kind',
      'metadata',
      'spec',
      'status',
      'data',
    ]);
    expect(schema.required).toEqual(['metadata']);
    expect(schema.description).toBe('Widget (example.com/v1)');
    expect(schema.properties.spec.properties.ports?.['x-kubernetes-patch-merge-key']).toBe('name');
  });

  it('gives a static type assignable to KubeObject', () => {
    type Widget = Static<typeof schema>;
    expectTypeOf<Widget['spec']>().toEqualTypeOf<
      { size: number; ports?: { name: string; port: number }[] } | undefined
    >();
    expectTypeOf<Widget>().toMatchTypeOf<KubeObject>();
  });

  it('accepts apiVersion and extra as in the contract', () => {
    const other = kindSchema({ apiVersion: 'v1', kind: 'Thing', extra: { value: Type.String() } });
    expect(other.description).toBe('Thing (v1)');
    expect(other.required).toEqual(['metadata', 'value']);
  });
});

describe('kindListSchema', () => {
  it('wraps items with ListMeta', () => {
    const item = kindSchema({ group: 'example.com', version: 'v1', kind: 'Widget' });
    const list = kindListSchema({ kind: 'WidgetList', items: item });
    expect(list.properties.items.items).toBe(item);
    expect(list.properties.metadata.properties.continue).toBeDefined();
    expect(list.required).toEqual(['items']);
    expect(list.description).toBe('WidgetList is a list of Widget');
  });
});
