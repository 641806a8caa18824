import { describe, expect, it } from 'vitest';
import {
  decodeProtobufMessage,
  protobufField as field,
  protobufMessage as message,
  protobufRepeatedField as repeated,
  type ProtobufMessageDescriptor,
} from '@kapi/apimachinery';
import { encodeOpenAPIV2Protobuf } from './openapi-v2-protobuf.js';
import { doubleField, varintField } from './protobuf-writer.js';

// A reading of gnostic's openapi.v2 messages (field numbers of OpenAPIv2.proto), enough to check the encoding.
const namedAny = message('NamedAny', { 1: field('name', 'string'), 2: field('value', message('Any', { 2: field('yaml', 'string') })) });
const schema: ProtobufMessageDescriptor = message('Schema', {
  1: field('$ref', 'string'),
  2: field('format', 'string'),
  4: field('description', 'string'),
  11: field('maxLength', 'int64'),
  16: field('uniqueItems', 'bool'),
  19: repeated('required', 'string'),
  21: field('additionalProperties', () => message('AdditionalPropertiesItem', { 1: field('schema', schema), 2: field('boolean', 'bool', { keepZero: true }) })),
  22: field('type', message('TypeItem', { 1: repeated('value', 'string') })),
  23: field('items', () => message('ItemsItem', { 1: repeated('schema', schema) })),
  25: field('properties', () => namedSchemas),
  31: repeated('vendorExtension', namedAny),
});
const namedSchemas: ProtobufMessageDescriptor = message('Properties', {
  1: repeated('additionalProperties', message('NamedSchema', { 1: field('name', 'string'), 2: field('value', schema) })),
});
const document = message('Document', {
  1: field('swagger', 'string'),
  2: field('info', message('Info', { 1: field('title', 'string'), 2: field('version', 'string') })),
  9: field('definitions', namedSchemas),
});

describe('encodeOpenAPIV2Protobuf', () => {
  it('encodes definitions as gnostic Schemas: type, properties, items, maps, refs, required and x- extensions as YAML', () => {
    const bytes = encodeOpenAPIV2Protobuf({
      swagger: '2.0',
      info: { title: 'Kubernetes', version: 'v1.34.0' },
      definitions: {
        'io.k8s.api.core.v1.ConfigMap': {
          description: 'ConfigMap holds configuration data.',
          type: 'object',
          required: ['metadata'],
          properties: {
            data: { type: 'object', additionalProperties: { type: 'string' } },
            metadata: { $ref: '#/definitions/ObjectMeta' },
            finalizers: { type: 'array', items: { type: 'string', maxLength: 63 }, uniqueItems: true },
            open: { type: 'object', additionalProperties: false },
          },
          'x-kubernetes-group-version-kind': [{ group: '', kind: 'ConfigMap', version: 'v1' }],
        },
      },
    });
    expect(decodeProtobufMessage(bytes, document)).toEqual({
      swagger: '2.0',
      info: { title: 'Kubernetes', version: 'v1.34.0' },
      definitions: {
        additionalProperties: [
          {
            name: 'io.k8s.api.core.v1.ConfigMap',
            value: {
              description: 'ConfigMap holds configuration data.',
              required: ['metadata'],
              type: { value: ['object'] },
              properties: {
                additionalProperties: [
                  { name: 'data', value: { type: { value: ['object'] }, additionalProperties: { schema: { type: { value: ['string'] } } } } },
                  { name: 'metadata', value: { $ref: '#/definitions/ObjectMeta' } },
                  {
                    name: 'finalizers',
                    value: { type: { value: ['array'] }, uniqueItems: true, items: { schema: [{ type: { value: ['string'] }, maxLength: 63 }] } },
                  },
                  { name: 'open', value: { type: { value: ['object'] }, additionalProperties: { boolean: false } } },
                ],
              },
              vendorExtension: [
                { name: 'x-kubernetes-group-version-kind', value: { yaml: '[{"group":"","kind":"ConfigMap","version":"v1"}]' } },
              ],
            },
          },
        ],
      },
    });
  });

  it('writes varints and doubles as the wire format does', () => {
    expect([...varintField(1, 300)]).toEqual([0x08, 0xac, 0x02]);
    expect([...varintField(2, -1)]).toEqual([0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect([...doubleField(7, 1.5)]).toEqual([0x39, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f]);
  });
});
