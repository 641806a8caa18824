import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '@kapi/apimachinery';
import { validateCustomResourceSchema } from './validate-custom-resource-schema.js';
import type { JSONSchemaProps } from './json-schema-props.js';

const root = 'spec.versions[0].schema.openAPIV3Schema';

function check(schema: JSONSchemaProps): string[] {
  return validateCustomResourceSchema(schema, root).errors.map(fieldErrorMessage);
}

function withSpec(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { spec } };
}

describe('structural schema rules', () => {
  it('refuses a pattern RE2 does not compile, with Go\'s error text, and accepts RE2-only syntax', () => {
    expect(
      check(
        withSpec({
          type: 'object',
          properties: { foo: { type: 'string', pattern: '+' }, flags: { type: 'string', pattern: '^(?i)(abort|warn)?$' } },
          allOf: [{ properties: { foo: { pattern: '(' } } }],
        }),
      ),
    ).toEqual([
      `${root}.properties[spec].properties[foo].pattern: Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: \`+\``,
      `${root}.properties[spec].allOf[0].properties[foo].pattern: Invalid value: "(": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(\``,
    ]);
  });

  it('accepts a typical structural schema', () => {
    expect(
      check(
        withSpec({
          type: 'object',
          required: ['port'],
          properties: {
            port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
            labels: {
              type: 'object',
              additionalProperties: { type: 'string' },
              'x-kubernetes-map-type': 'atomic',
            },
            raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            ports: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
            },
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-preserve-unknown-fields': true,
            },
          },
          oneOf: [{ required: ['port'] }, { properties: { port: { minLength: 1 } } }],
        }),
      ),
    ).toEqual([]);
  });

  it('requires a type everywhere and object at the root', () => {
    expect(check({ properties: { spec: { properties: { a: { type: 'string' } } } } })).toEqual([
      `${root}.type: Required value: must not be empty at the root`,
      `${root}.properties[spec].type: Required value: must not be empty for specified object fields`,
    ]);
    expect(check({ type: 'string' })).toEqual([
      `${root}.type: Invalid value: "string": must be object at the root`,
    ]);
  });

  it('refuses additionalProperties beside properties and at the root', () => {
    expect(
      check(
        withSpec({
          type: 'object',
          properties: { a: { type: 'string' } },
          additionalProperties: { type: 'string' },
        }),
      ),
    ).toEqual([
      `${root}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
    ]);
    expect(check({ type: 'object', additionalProperties: { type: 'string' } })).toEqual([
      `${root}.additionalProperties: Forbidden: must not be used at the root`,
    ]);
  });

  it('restricts root metadata to name and generateName', () => {
    expect(
      check({
        type: 'object',
        properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } },
      }),
    ).toEqual([]);
    expect(
      check({
        type: 'object',
        properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } },
      }),
    ).toEqual([
      `${root}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
  });

  it('forbids types, defaults and extensions inside value validations, and fields not declared outside', () => {
    expect(
      check(
        withSpec({
          type: 'object',
          properties: { a: { type: 'string' } },
          anyOf: [{ type: 'object' }, { properties: { b: { type: 'string' } } }],
        }),
      ),
    ).toEqual([
      `${root}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${root}.properties[spec].anyOf[1].properties[b].type: Forbidden: must be empty to be structural`,
      `${root}.properties[spec].anyOf[1].properties[b]: Required value: because it is defined in ${root}.properties[spec].anyOf[1].properties[b]`,
    ]);
  });

  it('checks preserve-unknown-fields, uniqueItems, items and unsupported keywords', () => {
    expect(
      check(
        withSpec({
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': false,
          properties: {
            l: { type: 'array', uniqueItems: true } as JSONSchemaProps,
            r: { $ref: '#/x', type: 'string' },
          },
        }),
      ),
    ).toEqual([
      `${root}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      `${root}.properties[spec].properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${root}.properties[spec].properties[l].items: Required value: must be specified`,
      `${root}.properties[spec].properties[r].$ref: Forbidden: $ref is not supported`,
    ]);
  });

  it('checks list and map types', () => {
    expect(
      check(
        withSpec({
          type: 'object',
          properties: {
            bad: { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } },
            noKeys: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              items: { type: 'object', properties: { k: { type: 'string' } } },
            },
            optionalKey: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['k', 'missing'],
              items: { type: 'object', properties: { k: { type: 'string' } } },
            },
            setOfObjects: {
              type: 'array',
              'x-kubernetes-list-type': 'set',
              items: { type: 'object', properties: { k: { type: 'string' } } },
            },
            keysWithoutMap: { type: 'array', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'string' } },
            mapType: {
              type: 'object',
              'x-kubernetes-map-type': 'deep',
              additionalProperties: { type: 'string' },
            },
          },
        }),
      ),
    ).toEqual([
      `${root}.properties[spec].properties[bad].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
      `${root}.properties[spec].properties[noKeys].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${root}.properties[spec].properties[optionalKey].items.required: Required value: all map keys must be required or have a default value: k`,
      `${root}.properties[spec].properties[optionalKey].x-kubernetes-list-map-keys[1]: Invalid value: "missing": entries must all be names of item properties`,
      `${root}.properties[spec].properties[setOfObjects].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`,
      `${root}.properties[spec].properties[keysWithoutMap].x-kubernetes-list-map-keys: Forbidden: must be empty if x-kubernetes-list-type is not map`,
      `${root}.properties[spec].properties[mapType].x-kubernetes-map-type: Unsupported value: "deep": supported values: "atomic", "granular"`,
    ]);
  });

  it('checks embedded resources and int-or-string', () => {
    expect(
      check(
        withSpec({
          type: 'object',
          properties: {
            e: {
              type: 'string',
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-preserve-unknown-fields': true,
            },
            i: { type: 'string', 'x-kubernetes-int-or-string': true },
          },
        }),
      ),
    ).toEqual([
      `${root}.properties[spec].properties[e].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
      `${root}.properties[spec].properties[i].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true`,
    ]);
  });

  it('requires defaults to be pruned and valid', () => {
    expect(
      check(
        withSpec({
          type: 'object',
          properties: {
            n: { type: 'integer', default: 'x' },
            o: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'ok', b: 1 } },
            fine: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'ok' } },
          },
        }),
      ),
    ).toEqual([
      `${root}.properties[spec].properties[n].default: Invalid value: "string": ${root}.properties[spec].properties[n].default in body must be of type integer: "string"`,
      `${root}.properties[spec].properties[o].default: Invalid value: {"a":"ok","b":1}: must not have unknown fields: [b]`,
    ]);
  });

  it('reports structural violations as NonStructuralSchema reasons for legacy objects', () => {
    const result = validateCustomResourceSchema({ type: 'object', properties: { spec: {} } }, root, {
      preserveUnknownFieldsAllowed: true,
    });
    expect(result.errors).toEqual([]);
    expect(result.nonStructural).toEqual([
      `${root}.properties[spec].type: Required value: must not be empty`,
    ]);
  });
});
