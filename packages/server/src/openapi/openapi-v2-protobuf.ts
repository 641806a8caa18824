import type { JSONSchema } from './meta-definitions.js';
import { bytesField, doubleField, fields, varintField } from './protobuf-writer.js';

/**
 * The media types `/openapi/v2` answers in protobuf: kubectl asks for the first (kube-openapi's deprecated
 * `@v1.0` spelling, which Go's mime parser rejects), and both are answered with the second as Content-Type,
 * as upstream.
 */
export const OPENAPI_V2_PROTOBUF_MEDIA_TYPES = [
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
] as const;

/** The Content-Type of the protobuf form. */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = OPENAPI_V2_PROTOBUF_MEDIA_TYPES[1];

// Field numbers are those of gnostic's `openapi.v2` messages (github.com/google/gnostic-models,
// openapiv2/OpenAPIv2.proto, Apache-2.0), which kubectl decodes with `openapi_v2.Document`.

type Json = unknown;

const isRecord = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: Json): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

function text(field: number, value: Json): Buffer | undefined {
  return typeof value === 'string' && value !== '' ? bytesField(field, value) : undefined;
}
function flag(field: number, value: Json): Buffer | undefined {
  return value === true ? varintField(field, true) : undefined;
}
function integer(field: number, value: Json): Buffer | undefined {
  return typeof value === 'number' && value !== 0 ? varintField(field, value) : undefined;
}
function double(field: number, value: Json): Buffer | undefined {
  return typeof value === 'number' && value !== 0 ? doubleField(field, value) : undefined;
}
function repeatedText(field: number, value: Json): Buffer[] {
  return strings(value).map((item) => bytesField(field, item));
}

/** `Any`: a value as its YAML text (JSON is YAML), field `yaml` = 2. */
function anyMessage(value: Json): Buffer {
  return fields(bytesField(2, JSON.stringify(value)));
}

/** `repeated NamedAny vendor_extension`: every `x-` key. */
function vendorExtensions(field: number, object: Record<string, Json>): Buffer[] {
  return Object.entries(object)
    .filter(([key]) => key.startsWith('x-'))
    .map(([key, value]) => bytesField(field, fields(bytesField(1, key), bytesField(2, anyMessage(value)))));
}

function externalDocs(field: number, value: Json): Buffer | undefined {
  if (!isRecord(value)) return undefined;
  return bytesField(field, fields(text(1, value['description']), text(2, value['url']), vendorExtensions(3, value)));
}

/** `Schema`. */
function schema(value: Json): Buffer {
  if (!isRecord(value)) return Buffer.alloc(0);
  const type = typeof value['type'] === 'string' ? [value['type']] : strings(value['type']);
  const items = value['items'];
  const itemList = Array.isArray(items) ? items : items === undefined ? [] : [items];
  const additional = value['additionalProperties'];
  const properties = value['properties'];
  return fields(
    text(1, value['$ref']),
    text(2, value['format']),
    text(3, value['title']),
    text(4, value['description']),
    value['default'] === undefined ? undefined : bytesField(5, anyMessage(value['default'])),
    double(6, value['multipleOf']),
    double(7, value['maximum']),
    flag(8, value['exclusiveMaximum']),
    double(9, value['minimum']),
    flag(10, value['exclusiveMinimum']),
    integer(11, value['maxLength']),
    integer(12, value['minLength']),
    text(13, value['pattern']),
    integer(14, value['maxItems']),
    integer(15, value['minItems']),
    flag(16, value['uniqueItems']),
    integer(17, value['maxProperties']),
    integer(18, value['minProperties']),
    repeatedText(19, value['required']),
    Array.isArray(value['enum']) ? value['enum'].map((item) => bytesField(20, anyMessage(item))) : undefined,
    // AdditionalPropertiesItem: oneof schema = 1 | boolean = 2.
    typeof additional === 'boolean'
      ? bytesField(21, varintField(2, additional))
      : isRecord(additional)
        ? bytesField(21, bytesField(1, schema(additional)))
        : undefined,
    type.length > 0 ? bytesField(22, fields(type.map((item) => bytesField(1, item)))) : undefined,
    itemList.length > 0 ? bytesField(23, fields(itemList.map((item) => bytesField(1, schema(item))))) : undefined,
    Array.isArray(value['allOf']) ? value['allOf'].map((item) => bytesField(24, schema(item))) : undefined,
    isRecord(properties) ? bytesField(25, namedSchemas(properties)) : undefined,
    text(26, value['discriminator']),
    flag(27, value['readOnly']),
    externalDocs(29, value['externalDocs']),
    value['example'] === undefined ? undefined : bytesField(30, anyMessage(value['example'])),
    vendorExtensions(31, value),
  );
}

/** `Properties` / `Definitions`: `repeated NamedSchema additional_properties = 1`. */
function namedSchemas(record: Record<string, Json>): Buffer {
  return fields(Object.entries(record).map(([name, value]) => bytesField(1, fields(bytesField(1, name), bytesField(2, schema(value))))));
}

/** `ParametersItem`: a body parameter, a non-body one (query or path), or a `$ref`. */
function parameter(value: Json): Buffer {
  if (!isRecord(value)) return Buffer.alloc(0);
  if (typeof value['$ref'] === 'string') return bytesField(2, fields(text(1, value['$ref']), text(2, value['description'])));
  if (value['in'] === 'body') {
    const body = fields(
      text(1, value['description']),
      text(2, value['name']),
      text(3, value['in']),
      flag(4, value['required']),
      value['schema'] === undefined ? undefined : bytesField(5, schema(value['schema'])),
      vendorExtensions(6, value),
    );
    return bytesField(1, bytesField(1, body));
  }
  // Query (NonBodyParameter field 3) and path (field 4) sub-schemas share the first fields' layout up to `type`.
  const isPath = value['in'] === 'path';
  const offset = isPath ? 0 : 1; // query has allow_empty_value = 5 before `type`.
  const subSchema = fields(
    flag(1, value['required']),
    text(2, value['in']),
    text(3, value['description']),
    text(4, value['name']),
    isPath ? undefined : flag(5, value['allowEmptyValue']),
    text(5 + offset, value['type']),
    text(6 + offset, value['format']),
    flag(19 + offset, value['uniqueItems']),
    vendorExtensions(22 + offset, value),
  );
  return bytesField(1, bytesField(2, bytesField(isPath ? 4 : 3, subSchema)));
}

/** `Operation`. */
function operation(value: Json): Buffer {
  if (!isRecord(value)) return Buffer.alloc(0);
  const responses = isRecord(value['responses']) ? value['responses'] : {};
  const responseCodes = Object.entries(responses).map(([code, response]) => {
    const body = isRecord(response)
      ? fields(
          text(1, response['description']),
          // SchemaItem: oneof schema = 1.
          response['schema'] === undefined ? undefined : bytesField(2, bytesField(1, schema(response['schema']))),
          vendorExtensions(5, response),
        )
      : Buffer.alloc(0);
    // NamedResponseValue { name = 1, ResponseValue { response = 1 } = 2 }.
    return bytesField(1, fields(bytesField(1, code), bytesField(2, bytesField(1, body))));
  });
  return fields(
    repeatedText(1, value['tags']),
    text(2, value['summary']),
    text(3, value['description']),
    externalDocs(4, value['externalDocs']),
    text(5, value['operationId']),
    repeatedText(6, value['produces']),
    repeatedText(7, value['consumes']),
    Array.isArray(value['parameters']) ? value['parameters'].map((item) => bytesField(8, parameter(item))) : undefined,
    bytesField(9, fields(responseCodes)),
    repeatedText(10, value['schemes']),
    flag(11, value['deprecated']),
    vendorExtensions(13, value),
  );
}

const pathItemOperations: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

/** `PathItem`. */
function pathItem(value: Json): Buffer {
  if (!isRecord(value)) return Buffer.alloc(0);
  return fields(
    text(1, value['$ref']),
    Object.entries(pathItemOperations).flatMap(([method, field]) =>
      value[method] === undefined ? [] : [bytesField(field, operation(value[method]))],
    ),
    Array.isArray(value['parameters']) ? value['parameters'].map((item) => bytesField(9, parameter(item))) : undefined,
    vendorExtensions(10, value),
  );
}

/** `SecurityDefinitionsItem` for the `apiKey` kind (the only one kapi publishes). */
function securityDefinitions(value: Json): Buffer | undefined {
  if (!isRecord(value)) return undefined;
  const named = Object.entries(value).flatMap(([name, definition]) => {
    if (!isRecord(definition) || definition['type'] !== 'apiKey') return [];
    const apiKey = fields(text(1, definition['type']), text(2, definition['name']), text(3, definition['in']), text(4, definition['description']));
    return [bytesField(1, fields(bytesField(1, name), bytesField(2, bytesField(2, apiKey))))];
  });
  return bytesField(13, fields(named));
}

/** `SecurityRequirement`: `repeated NamedStringArray additional_properties = 1`. */
function securityRequirement(value: Json): Buffer {
  if (!isRecord(value)) return Buffer.alloc(0);
  return fields(
    Object.entries(value).map(([name, scopes]) =>
      bytesField(1, fields(bytesField(1, name), bytesField(2, fields(repeatedText(1, scopes))))),
    ),
  );
}

/**
 * Encodes a Swagger 2.0 document (the JSON `/openapi/v2` serves) as gnostic's `openapi.v2.Document`
 * protobuf, the form kubectl fetches for client-side validation.
 */
export function encodeOpenAPIV2Protobuf(document: JSONSchema): Buffer {
  const info = isRecord(document['info']) ? document['info'] : {};
  const paths = isRecord(document['paths']) ? document['paths'] : {};
  const definitions = isRecord(document['definitions']) ? document['definitions'] : {};
  return fields(
    text(1, document['swagger']),
    bytesField(2, fields(text(1, info['title']), text(2, info['version']), text(3, info['description']), vendorExtensions(7, info))),
    text(3, document['host']),
    text(4, document['basePath']),
    repeatedText(5, document['schemes']),
    repeatedText(6, document['consumes']),
    repeatedText(7, document['produces']),
    bytesField(8, fields(Object.entries(paths).map(([path, item]) => bytesField(2, fields(bytesField(1, path), bytesField(2, pathItem(item))))))),
    bytesField(9, namedSchemas(definitions)),
    Array.isArray(document['security']) ? document['security'].map((item) => bytesField(12, securityRequirement(item))) : undefined,
    securityDefinitions(document['securityDefinitions']),
    vendorExtensions(16, document),
  );
}
