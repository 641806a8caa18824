import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.js';
import type { CompiledSchema } from './compiled-schema.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import { sameJson } from '@kapi/apimachinery';

/** What isPrunedAndDefaulted must answer: whether pruning then defaulting a copy changes anything. */
function changedByPruneAndDefault(schema: CompiledSchema, object: Record<string, unknown>): boolean {
  const copy = structuredClone(object);
  schema.prune(copy);
  schema.applyDefaults(copy);
  return !sameJson(copy, object);
}

const schema = compileSchema({
  type: 'object',
  properties: {
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        mode: { type: 'string', nullable: true },
        ports: {
          type: 'array',
          items: {
            type: 'object',
            default: { port: 80 },
            properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
          },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string', default: 'y' } } } } },
      },
    },
  },
} as JSONSchemaProps);

const normalized = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', labels: { a: 'b' } },
  spec: {
    replicas: 3,
    mode: null,
    ports: [{ port: 8080, protocol: 'UDP' }],
    labels: { team: 'x' },
    free: { anything: [1, { deep: true }], known: { a: 'b' } },
    template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'u' }] }, spec: { x: 'z' } },
  },
};

/** Variants of `normalized`, each with one thing pruning or defaulting changes (true) or leaves (false). */
const variants: [string, (object: typeof normalized & Record<string, unknown>) => void, boolean][] = [
  ['nothing changed', () => {}, false],
  ['an unknown field', (o) => Object.assign(o.spec, { unknown: 1 }), true],
  ['an unknown root field', (o) => Object.assign(o, { status: {} }), true],
  ['a missing default', (o) => Reflect.deleteProperty(o.spec, 'replicas'), true],
  ['a null where not nullable', (o) => Object.assign(o.spec, { replicas: null }), true],
  ['a null where nullable', (o) => Object.assign(o.spec, { mode: null }), false],
  ['a missing default in a list item', (o) => Reflect.deleteProperty(o.spec.ports[0] ?? {}, 'protocol'), true],
  ['a null list item with a default', (o) => Object.assign(o.spec, { ports: [null] }), true],
  ['an unknown field in a list item', (o) => Object.assign(o.spec.ports[0] ?? {}, { extra: 1 }), true],
  ['an additionalProperties value of any name', (o) => Object.assign(o.spec.labels, { other: 'y' }), false],
  ['unknown fields under preserve-unknown-fields', (o) => Object.assign(o.spec.free, { more: { x: 1 } }), false],
  ['an unknown field in a declared child of preserve-unknown-fields', (o) => Object.assign(o.spec.free.known, { b: 1 }), true],
  // As upstream's objectmeta coercion: metadata holds the fields of ObjectMeta, at the root and in embedded resources.
  ['unknown metadata of an embedded resource', (o) => Object.assign(o.spec.template.metadata, { other: 2 }), true],
  ['an unknown field in an owner reference of an embedded resource', (o) => Object.assign(o.spec.template.metadata.ownerReferences[0] ?? {}, { other: 2 }), true],
  ['unknown metadata of the root', (o) => Object.assign(o.metadata, { other: 2 }), true],
  ['a missing default in an embedded resource', (o) => Reflect.deleteProperty(o.spec.template.spec, 'x'), true],
  ['an unknown field in an embedded resource', (o) => Object.assign(o.spec.template, { extra: 1 }), true],
];

describe('isPrunedAndDefaulted', () => {
  it.each(variants)('%s', (_name, change, changes) => {
    const object = structuredClone(normalized);
    change(object);
    expect(changedByPruneAndDefault(schema, object)).toBe(changes);
    expect(schema.isPrunedAndDefaulted(object)).toBe(!changes);
    // The unknown-field check's quick answer agrees with pruning's list of paths.
    const pruned = schema.prune(structuredClone(object));
    expect(schema.unknownFields(object)).toEqual(pruned);
  });

  it('agrees with pruning and defaulting on the Gateway API examples, before and after both', () => {
    const root = join(import.meta.dirname, 'testdata', 'crds', 'gateway-api');
    const crd = parse(readFileSync(join(root, 'gateway.networking.k8s.io_httproutes.yaml'), 'utf8')) as {
      spec: { versions: { name: string; schema: { openAPIV3Schema: JSONSchemaProps } }[] };
    };
    const v1 = crd.spec.versions.find((version) => version.name === 'v1');
    const httpRoutes = compileSchema(v1!.schema.openAPIV3Schema);
    const examples = readdirSync(join(root, 'examples'))
      .flatMap((file) => parseAllDocuments(readFileSync(join(root, 'examples', file), 'utf8')))
      .map((doc) => doc.toJS() as Record<string, unknown>)
      .filter((doc) => doc['kind'] === 'HTTPRoute' && doc['apiVersion'] === 'gateway.networking.k8s.io/v1');
    expect(examples.length).toBe(4);
    let defaulted = 0;
    for (const example of examples) {
      const changes = changedByPruneAndDefault(httpRoutes, example);
      if (changes) defaulted++;
      expect(httpRoutes.isPrunedAndDefaulted(example)).toBe(!changes);
      httpRoutes.prune(example);
      httpRoutes.applyDefaults(example);
      expect(httpRoutes.isPrunedAndDefaulted(example)).toBe(true);
    }
    expect(defaulted).toBeGreaterThan(0);
  });
});
