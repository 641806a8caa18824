import { describe, expect, it } from 'vitest';
import { createdFieldsV1 } from './created-fields.js';
import { fieldElement } from './field-path.js';
import { FieldSet } from './field-set.js';
import { toFieldsV1 } from './fields-v1.js';
import type { SchemaNode } from './schema-type.js';
import { deployment, deploymentSchema } from './test-schema.js';
import { compare, TypedValueError } from './typed-value.js';
import type { JsonRecord } from '../json-value.js';

/** What the general path records for a create: everything Compare adds to `{}`, less the never-owned paths. */
function general(value: JsonRecord, schema: SchemaNode | undefined) {
  const metadata = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'selfLink', 'clusterName', 'managedFields'];
  const neverOwned = FieldSet.of(
    [fieldElement('apiVersion')],
    [fieldElement('kind')],
    [fieldElement('metadata')],
    ...metadata.map((name) => [fieldElement('metadata'), fieldElement(name)]),
  );
  const fields = compare({}, value, schema).added.difference(neverOwned);
  return fields.isEmpty() ? undefined : toFieldsV1(fields);
}

const rich: JsonRecord = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', generateName: 'web-', uid: { odd: 1 }, labels: { z: '1', a: '2' }, annotations: {}, finalizers: ['b', 'a', 'b'] },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          { name: 'b', image: 'x', args: ['1', '2'], ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP', name: 'dns' }] },
          { name: 'a', image: null },
        ],
      },
    },
    free: { nested: { deep: [1, { x: 2 }] }, empty: {} },
    undeclared: 'kept as deduced',
  },
  status: { ready: 1 },
};

describe('createdFieldsV1', () => {
  const cases: Array<[string, JsonRecord, SchemaNode | undefined]> = [
    ['a Deployment', deployment() as JsonRecord, deploymentSchema],
    ['sets, list-maps, atomic maps, preserved and undeclared fields', rich, deploymentSchema],
    ['the same without a schema', rich, undefined],
    ['keys out of order: a few (insertion-sorted) and many (sorted by Array.prototype.sort)', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { z: '', Z: '', é: '', '10': '', '9': '', a: '' }, many: Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`k${(index * 7) % 20}`, ''])) }, undefined],
    ['a 2 KB ConfigMap without a schema', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'd' }, data: { payload: 'x'.repeat(2048), b: '' } }, undefined],
  ];
  for (const [name, value, schema] of cases) {
    it(`records what the general comparison records: ${name}`, () => {
      const fast = createdFieldsV1(structuredClone(value), schema);
      expect(fast).toBeDefined();
      expect(JSON.stringify(fast)).toBe(JSON.stringify(general(value, schema)));
    });
  }

  it('owns nothing when only never-owned fields are set', () => {
    expect(createdFieldsV1({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'd' } }, undefined)).toBeUndefined();
  });

  it('fails like the general path on a list-map item without its key', () => {
    const value = { spec: { template: { spec: { containers: [{ name: 'a', ports: [{ name: 'no-port' }] }] } } } };
    expect(() => general(value, deploymentSchema)).toThrow(TypedValueError);
    expect(() => createdFieldsV1(value, deploymentSchema)).toThrow(TypedValueError);
  });
});
