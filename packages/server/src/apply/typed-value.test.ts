import { describe, expect, it } from 'vitest';
import { pathText } from './field-path.js';
import { toFieldsV1 } from './fields-v1.js';
import { deployment, deploymentSchema } from './test-schema.js';
import { mergeApplied, removeItems } from './typed-merge.js';
import { compare, toFieldSet, TypedValueError } from './typed-value.js';
import { FieldSet } from './field-set.js';
import { schemaType } from './schema-type.js';

const paths = (set: FieldSet) => set.paths().map(pathText);

describe('schemaType', () => {
  it('derives list and map semantics from the x-kubernetes extensions and patch strategies', () => {
    expect(schemaType({ type: 'array', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' })).toMatchObject({ type: 'map', keys: ['name'] });
    expect(schemaType({ type: 'array', 'x-kubernetes-patch-strategy': 'merge' })).toMatchObject({ type: 'set' });
    expect(schemaType({ type: 'array', 'x-kubernetes-patch-strategy': 'retainKeys' })).toMatchObject({ type: 'atomic' });
    expect(schemaType({ type: 'array' })).toMatchObject({ type: 'atomic' });
    expect(schemaType({ type: 'object', 'x-kubernetes-map-type': 'atomic' })).toMatchObject({ kind: 'map', atomic: true });
    expect(schemaType(undefined)).toEqual({ kind: 'deduced' });
  });
});

describe('toFieldSet', () => {
  it('owns leaves, list items and map keys but not non-empty struct fields', () => {
    const object = deployment();
    (object.spec as Record<string, unknown>)['selector'] = { matchLabels: { app: 'web' } };
    const fields = toFieldsV1(toFieldSet(object, deploymentSchema));
    expect(fields).toEqual({
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:name': {}, 'f:namespace': {} },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
      },
    });
  });

  it('fills missing keys from defaults, treats unknown maps as granular and lists as atomic', () => {
    const object = {
      spec: {
        template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } },
        free: { a: { b: 1 }, list: [1, 2] },
      },
    };
    expect(paths(toFieldSet(object, deploymentSchema))).toEqual([
      '.spec.free.a',
      '.spec.free.a.b',
      '.spec.free.list',
      '.spec.template.spec.containers[name="c"]',
      '.spec.template.spec.containers[name="c"].name',
      '.spec.template.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"]',
      '.spec.template.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"].containerPort',
    ]);
  });

  it('fails on undeclared fields and duplicate keys with structured-merge-diff texts', () => {
    expect(() => toFieldSet({ spec: { foo: 1 } }, deploymentSchema)).toThrow(TypedValueError);
    expect(() => toFieldSet({ spec: { foo: 1 } }, deploymentSchema)).toThrow('.spec.foo: field not declared in schema');
    const duplicated = { spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } } };
    expect(() => toFieldSet(duplicated, deploymentSchema)).toThrow('duplicate entries for key [name="a"]');
    const keyless = { spec: { template: { spec: { containers: [{ image: 'x' }] } } } };
    expect(() => toFieldSet(keyless, deploymentSchema)).toThrow('omits key field "name"');
  });
});

describe('compare', () => {
  it('splits changes into added (with new parents), modified and removed', () => {
    const live = deployment();
    const next = deployment({ replicas: 3, labels: {} });
    next.spec.template.spec.containers.push({ name: 'side', image: 'busybox' });
    const result = compare(live, next, deploymentSchema);
    expect(paths(result.modified)).toEqual(['.spec.replicas']);
    expect(paths(result.removed)).toEqual(['.metadata.labels.app']);
    expect(paths(result.added)).toEqual([
      '.spec.template.spec.containers[name="side"]',
      '.spec.template.spec.containers[name="side"].image',
      '.spec.template.spec.containers[name="side"].name',
    ]);
    const same = compare(live, deployment(), deploymentSchema);
    expect([same.added, same.modified, same.removed].every((set) => set.isEmpty())).toBe(true);
  });
});

describe('mergeApplied and removeItems', () => {
  it('merges list-maps by key keeping live order, unions sets and replaces atomics', () => {
    const live = {
      metadata: { finalizers: ['a', 'b'] },
      spec: {
        selector: { matchLabels: { x: '1', y: '2' } },
        template: { spec: { containers: [{ name: 'one', image: 'i1', args: ['a'] }, { name: 'two', image: 'i2' }] } },
      },
    };
    const config = {
      metadata: { finalizers: ['c', 'a'] },
      spec: {
        selector: { matchLabels: { z: '3' } },
        template: { spec: { containers: [{ name: 'two', image: 'new' }, { name: 'three' }] } },
      },
    };
    expect(mergeApplied(live, config, deploymentSchema)).toEqual({
      // Config-only items come before the next shared item, in config order (visitListItems).
      metadata: { finalizers: ['c', 'a', 'b'] },
      spec: {
        selector: { matchLabels: { z: '3' } },
        template: {
          spec: { containers: [{ name: 'one', image: 'i1', args: ['a'] }, { name: 'two', image: 'new' }, { name: 'three' }] },
        },
      },
    });
    expect(live.spec.template.spec.containers[1]).toEqual({ name: 'two', image: 'i2' });
  });

  it('removes what nobody keeps, and keeps items that still have owned fields', () => {
    const value = { metadata: { labels: { a: '1', b: '2' } }, spec: { template: { spec: { containers: [{ name: 'x', image: 'i' }, { name: 'y' }] } } } };
    const remove = toFieldSet({ metadata: { labels: { a: '1' } }, spec: { template: { spec: { containers: [{ name: 'x', image: 'i' }, { name: 'y' }] } } } }, deploymentSchema);
    const keep = FieldSet.of(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"x"}', 'f:image']);
    expect(removeItems(value, remove, keep, deploymentSchema)).toEqual({
      metadata: { labels: { b: '2' } },
      spec: { template: { spec: { containers: [{ name: 'x', image: 'i' }] } } },
    });
  });
});
