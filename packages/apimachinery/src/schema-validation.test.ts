import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { hasTypeMismatch, validateAgainstSchema } from './schema-validation.js';
import { fieldErrorMessage } from './status-error.js';

const schema = Type.Object({
  spec: Type.Object({
    replicas: Type.Integer({ minimum: 1, maximum: 10 }),
    ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    name: Type.Optional(Type.String({ minLength: 2, maxLength: 5, pattern: '^[a-z]+$' })),
    mode: Type.Optional(Type.Union([Type.Literal('Fast'), Type.Literal('Slow')])),
    kind: Type.Optional(Type.String({ enum: ['a', 'b'] })),
    tags: Type.Optional(
      Type.Array(Type.String(), { minItems: 1, maxItems: 2, 'x-kubernetes-list-type': 'set' }),
    ),
    metrics: Type.Optional(
      Type.Array(Type.Object({ type: Type.String(), value: Type.Optional(Type.Integer()) })),
    ),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    port: Type.Optional(Type.Unsafe<number | string>({ 'x-kubernetes-int-or-string': true })),
    note: Type.Optional(Type.String({ nullable: true })),
    anything: Type.Optional(Type.Unknown()),
  }),
});

describe('validateAgainstSchema', () => {
  it('accepts a valid value', () => {
    const value = {
      spec: {
        replicas: 3,
        ratio: 0.5,
        name: 'abc',
        mode: 'Fast',
        kind: 'a',
        tags: ['x'],
        metrics: [{ type: 'cpu', value: 1 }],
        labels: { a: 'b' },
        port: 'http',
        note: null,
        anything: { deep: [1, 'x'] },
      },
    };
    expect(validateAgainstSchema(value, schema)).toEqual([]);
  });

  it('checks a list of types: any one matches (number takes integers), none reports them all', () => {
    const listed = { type: 'object', properties: { a: { type: ['string', 'number'] }, b: { type: [] } } };
    expect(validateAgainstSchema({ a: 'x', b: 1 }, listed)).toEqual([]);
    expect(validateAgainstSchema({ a: 2 }, listed)).toEqual([]);
    expect(validateAgainstSchema({ a: true }, listed).map((error) => error.detail)).toEqual([
      'a in body must be of type string,number: "boolean"',
    ]);
  });

  it('reports wrong types with Kubernetes wording and paths', () => {
    const errors = validateAgainstSchema(
      { spec: { replicas: 'three', metrics: [{ type: 3 }], labels: { a: 1 } } },
      schema,
    );
    expect(errors).toEqual([
      {
        field: 'spec.replicas',
        type: 'FieldValueInvalid',
        value: 'string',
        detail: 'spec.replicas in body must be of type integer: "string"',
      },
      {
        field: 'spec.metrics[0].type',
        type: 'FieldValueInvalid',
        value: 'integer',
        detail: 'spec.metrics[0].type in body must be of type string: "integer"',
      },
      {
        field: 'spec.labels[a]',
        type: 'FieldValueInvalid',
        value: 'integer',
        detail: 'spec.labels[a] in body must be of type string: "integer"',
      },
    ]);
    expect(fieldErrorMessage(errors[0]!)).toBe(
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    );
    expect(validateAgainstSchema({ spec: { replicas: 1.5 } }, schema)[0]?.detail).toBe(
      'spec.replicas in body must be of type integer: "number"',
    );
    expect(validateAgainstSchema({ spec: { replicas: 1, port: true } }, schema)[0]?.field).toBe('spec.port');
    expect(validateAgainstSchema({ spec: { replicas: 1, name: null } }, schema)[0]?.detail).toBe(
      'spec.name in body must be of type string: "null"',
    );
  });

  it('reports required fields', () => {
    expect(validateAgainstSchema({ spec: { metrics: [{}] } }, schema)).toEqual([
      { field: 'spec.replicas', type: 'FieldValueRequired', detail: '' },
      { field: 'spec.metrics[0].type', type: 'FieldValueRequired', detail: '' },
    ]);
    expect(fieldErrorMessage(validateAgainstSchema({}, schema)[0]!)).toBe('spec: Required value');
  });

  it('reports enums as NotSupported with the supported values', () => {
    const errors = validateAgainstSchema({ spec: { replicas: 1, mode: 'Medium', kind: 'c' } }, schema);
    expect(errors.map(fieldErrorMessage)).toEqual([
      'spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"',
      'spec.kind: Unsupported value: "c": supported values: "a", "b"',
    ]);
    expect(errors[0]?.type).toBe('FieldValueNotSupported');
  });

  it('checks numeric, string and array bounds', () => {
    const errors = validateAgainstSchema(
      { spec: { replicas: 0, ratio: 0, name: 'ABCDEF', tags: ['a', 'b', 'a'] } },
      schema,
    );
    expect(errors.map(fieldErrorMessage)).toEqual([
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
      'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
      'spec.name: Too long: "ABCDEF": may not be more than 5 bytes',
      'spec.name: Invalid value: "ABCDEF": spec.name in body should match \'^[a-z]+$\'',
      'spec.tags: Too many: 3: must have at most 2 items',
      'spec.tags[2]: Duplicate value: "a"',
    ]);
    expect(
      validateAgainstSchema({ spec: { replicas: 11, name: 'a', tags: [] } }, schema).map(fieldErrorMessage),
    ).toEqual([
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long',
      'spec.tags: Invalid value: []: spec.tags in body should have at least 1 items',
    ]);
  });

  it('checks date-time and byte formats', () => {
    const formats = Type.Object({
      at: Type.Optional(Type.String({ format: 'date-time' })),
      data: Type.Optional(Type.String({ format: 'byte' })),
      other: Type.Optional(Type.String({ format: 'int-or-whatever' })),
    });
    expect(
      validateAgainstSchema({ at: '2024-01-02T03:04:05.123456Z', data: 'aGVsbG8=', other: 'x' }, formats),
    ).toEqual([]);
    expect(
      validateAgainstSchema({ at: 'yesterday', data: 'not base64!' }, formats).map(fieldErrorMessage),
    ).toEqual([
      'at: Invalid value: "yesterday": at in body must be of type date-time: "yesterday"',
      'data: Invalid value: "not base64!": data in body must be of type byte: "not base64!"',
    ]);
  });

  it('detects duplicate keys of map lists', () => {
    const list = Type.Array(Type.Object({ name: Type.String() }), {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    });
    expect(validateAgainstSchema([{ name: 'a' }, { name: 'b' }, { name: 'a' }], list, 'spec.ports')).toEqual([
      { field: 'spec.ports[2]', type: 'FieldValueDuplicate', value: { name: 'a' }, detail: '' },
    ]);
  });
});

describe('hasTypeMismatch', () => {
  const typed = Type.Object({
    count: Type.Optional(Type.Integer({ minimum: 5 })),
    port: Type.Optional(Type.Unsafe({ 'x-kubernetes-int-or-string': true })),
    note: Type.Optional(Type.Unsafe({ type: 'string', nullable: true })),
    either: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    tags: Type.Optional(Type.Record(Type.String(), Type.String())),
    items: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
  });

  it('is false for values of their schema types, whatever else is wrong with them', () => {
    for (const value of [{}, { count: 1 }, { port: 80 }, { port: 'http' }, { note: null }, { either: 'a' }, { either: ['a'] }, { tags: { a: 'b' } }, { items: [{}] }]) {
      expect(hasTypeMismatch(value, typed), JSON.stringify(value)).toBe(false);
    }
  });

  it('is true for a value of another type, at any depth', () => {
    for (const value of [[], { count: 'one' }, { count: 1.5 }, { port: true }, { either: 1 }, { either: [1] }, { tags: { a: 1 } }, { items: {} }, { items: [{ name: false }] }]) {
      expect(hasTypeMismatch(value, typed), JSON.stringify(value)).toBe(true);
    }
  });
});
