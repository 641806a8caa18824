import { describe, expect, it } from 'vitest';
import { schemaDecodeError } from './schema-types.js';

const versions = (openAPIV3Schema: unknown) => [{ name: 'v1', schema: { openAPIV3Schema } }];

describe('schemaDecodeError (openAPIV3Schema as Go decodes JSONSchemaProps)', () => {
  it('names the first value of the wrong JSON type, with the Go struct and field path', () => {
    expect(schemaDecodeError(versions({ type: 'object', properties: { a: { maxLength: 1.5 } } }))).toBe(
      'json: cannot unmarshal number into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.maxLength of type int64',
    );
    expect(schemaDecodeError(versions({ items: { anyOf: [{ enum: [1] }, 'x'] } }))).toBe(
      'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.items.anyOf of type v1.JSONSchemaProps',
    );
    expect(schemaDecodeError(versions({ additionalProperties: 'yes' }))).toBe(
      'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.additionalProperties of type v1.JSONSchemaPropsOrBool',
    );
    expect(schemaDecodeError(versions('object'))).toBe(
      'json: cannot unmarshal string into Go struct field CustomResourceValidation.spec.versions.schema.openAPIV3Schema of type v1.JSONSchemaProps',
    );
  });

  it('accepts what decodes, dropping nulls as the zero values they decode to', () => {
    const schema = {
      type: 'object',
      description: null,
      required: null,
      properties: { a: null, b: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""', message: null }] } },
      additionalProperties: false,
      default: { anything: [1, 'x'] },
    };
    expect(schemaDecodeError(versions(schema))).toBeUndefined();
    expect(schema).toEqual({
      type: 'object',
      properties: { a: {}, b: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] } },
      additionalProperties: false,
      default: { anything: [1, 'x'] },
    });
  });
});
