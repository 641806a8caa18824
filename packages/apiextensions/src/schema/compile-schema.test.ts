import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '@kapi/apimachinery';
import { compileSchema } from './compile-schema.js';
import type { JSONSchemaProps } from './json-schema-props.js';

function withSpec(spec: JSONSchemaProps): JSONSchemaProps {
  return {
    type: 'object',
    properties: { spec, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  };
}

function resource(spec: unknown): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' } }, spec };
}

function errors(schema: JSONSchemaProps, spec: unknown, oldSpec?: unknown): string[] {
  const compiled = compileSchema(schema);
  return compiled
    .validate(resource(spec), oldSpec === undefined ? undefined : resource(oldSpec))
    .map(fieldErrorMessage);
}

describe('pruning', () => {
  const schema = withSpec({
    type: 'object',
    properties: {
      a: { type: 'string' },
      list: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer' } } } },
      map: {
        type: 'object',
        additionalProperties: { type: 'object', properties: { y: { type: 'string' } } },
      },
      free: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { known: { type: 'object', properties: { k: { type: 'string' } } } },
      },
      embedded: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { spec: { type: 'object', properties: {} } },
      },
    },
  });

  it('removes undeclared fields and reports their paths, keeping TypeMeta, metadata and preserved subtrees', () => {
    const object = resource({
      a: 'x',
      b: 1,
      list: [{ x: 1, z: 2 }],
      map: { m: { y: 'y', w: true } },
      free: { anything: { goes: 1 }, known: { k: 'k', drop: 1 } },
      embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { gone: 1 }, other: 1 },
    });
    object['extra'] = true;
    expect(compileSchema(schema).prune(object).sort()).toEqual(
      [
        'extra',
        'spec.b',
        'spec.list[0].z',
        'spec.map.m.w',
        'spec.free.known.drop',
        'spec.embedded.spec.gone',
        'spec.embedded.other',
      ].sort(),
    );
    expect(object).toEqual(
      resource({
        a: 'x',
        list: [{ x: 1 }],
        map: { m: { y: 'y' } },
        free: { anything: { goes: 1 }, known: { k: 'k' } },
        embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
      }),
    );
  });

  it('unknownFields reports the same paths as prune and leaves the object unchanged', () => {
    const object = resource({ a: 'x', b: 1, list: [{ x: 1, z: 2 }], free: { anything: 1, known: { drop: 1 } } });
    const copy = structuredClone(object);
    const compiled = compileSchema(schema);
    const unknown = compiled.unknownFields(object);
    expect(unknown.sort()).toEqual(['spec.b', 'spec.free.known.drop', 'spec.list[0].z']);
    expect(object).toEqual(copy);
    expect(compiled.prune(object).sort()).toEqual(unknown);
  });
});

describe('defaulting', () => {
  const schema = withSpec({
    type: 'object',
    properties: {
      replicas: { type: 'integer', default: 1 },
      mode: { type: 'string', default: 'Auto' },
      nullable: { type: 'string', nullable: true, default: 'n' },
      dropped: { type: 'string' },
      nested: { type: 'object', default: {}, properties: { inner: { type: 'string', default: 'in' } } },
      items: {
        type: 'array',
        items: { type: 'object', properties: { port: { type: 'integer', default: 80 } } },
      },
      strings: { type: 'array', items: { type: 'string', default: 'd' } },
    },
  });

  it('fills missing fields and non-nullable nulls, keeps nullable nulls, drops nulls without a default, and defaults inside defaults', () => {
    const object = resource({
      mode: null,
      nullable: null,
      dropped: null,
      items: [{}, { port: 8080 }],
      strings: [null, 's'],
    });
    compileSchema(schema).applyDefaults(object);
    expect(object['spec']).toEqual({
      replicas: 1,
      mode: 'Auto',
      nullable: null,
      nested: { inner: 'in' },
      items: [{ port: 80 }, { port: 8080 }],
      strings: ['d', 's'],
    });
  });
});

describe('OpenAPI validation', () => {
  const schema = withSpec({
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
      count: { type: 'integer', minimum: 0, maximum: 10, format: 'int32' },
      mode: { type: 'string', enum: ['A', 'B'] },
      port: { 'x-kubernetes-int-or-string': true },
      tags: { type: 'array', maxItems: 2, 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      when: { type: 'string', format: 'date-time' },
      ip: { type: 'string', format: 'ipv4' },
      nothing: { type: 'string', not: { enum: ['x'] } },
    },
  });

  it('reports each violation with upstream paths and messages', () => {
    expect(
      errors(schema, {
        name: 'ABCDEFG',
        count: 11,
        mode: 'C',
        port: true,
        tags: ['a', 'a', 'b'],
        when: 'yesterday',
        ip: '1.2.3',
        nothing: 'x',
      }),
    ).toEqual([
      'spec.name: Too long: may not be more than 5 bytes',
      `spec.name: Invalid value: "ABCDEFG": spec.name in body should match '^[a-z]+$'`,
      'spec.count: Invalid value: 11: spec.count in body should be less than or equal to 10',
      'spec.mode: Unsupported value: "C": supported values: "A", "B"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      'spec.tags: Too many: 3: must have at most 2 items',
      'spec.tags[1]: Duplicate value: "a"',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      'spec.ip: Invalid value: "1.2.3": spec.ip in body must be of type ipv4: "1.2.3"',
      'spec.nothing: Invalid value: "x": spec.nothing in body must not validate the schema (not)',
    ]);
    expect(errors(schema, {})).toEqual(['spec.name: Required value']);
    expect(
      errors(schema, {
        name: 'ok',
        count: 3,
        port: 'http',
        tags: ['a'],
        when: '2024-01-02T03:04:05Z',
        ip: '10.0.0.1',
      }),
    ).toEqual([]);
  });

  it('reports type errors as TypeInvalid causes', () => {
    const [error] = compileSchema(schema).validate(resource({ name: 5 }));
    expect(error).toEqual({
      field: 'spec.name',
      type: 'FieldValueTypeInvalid',
      value: 'integer',
      detail: 'spec.name in body must be of type string: "integer"',
    });
  });
});

describe('ratcheting', () => {
  const schema = withSpec({
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', maxLength: 3 },
      other: { type: 'string' },
      ports: { type: 'array', items: { type: 'integer', maximum: 10 } },
      inner: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    },
  });

  it('lets unchanged invalid values pass on update and still refuses changed ones', () => {
    const stored = { name: 'toolong', ports: [1, 20], inner: {} };
    expect(errors(schema, { ...stored, other: 'x' }, stored)).toEqual([]);
    expect(errors(schema, { ...stored, name: 'stilltoolong' }, stored)).toEqual([
      'spec.name: Too long: may not be more than 3 bytes',
    ]);
    expect(errors(schema, { ...stored, ports: [1, 30] }, stored)).toEqual([
      'spec.ports[1]: Invalid value: 30: spec.ports[1] in body should be less than or equal to 10',
    ]);
    expect(errors(schema, { ...stored, inner: { other: 1 } }, stored)).toEqual([
      'spec.inner.id: Required value',
    ]);
    expect(errors(schema, stored)).toEqual([
      'spec.name: Too long: may not be more than 3 bytes',
      'spec.ports[1]: Invalid value: 20: spec.ports[1] in body should be less than or equal to 10',
      'spec.inner.id: Required value',
    ]);
  });
});
