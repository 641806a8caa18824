// A CRD's `openAPIV3Schema` as upstream decodes it into Go's JSONSchemaProps: a value of the wrong JSON
// type is a 400 decode error there (`json: cannot unmarshal array into Go struct field ValidationRule...`),
// and a null leaves the field's zero value (omitted when stored). The CRD kind's own schema leaves
// `openAPIV3Schema` free-form (it is recursive), so this check stands in for the decoder.

type Node = Record<string, unknown>;

const isRecord = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** encoding/json's name of a JSON value's type. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** A 400 decode error's text (the struct is the innermost Go type the field belongs to). */
class DecodeError extends Error {}

const fail = (value: unknown, struct: string, path: string, goType: string): never => {
  throw new DecodeError(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${struct}.${path} of type ${goType}`);
};

type Scalar = 'string' | 'float64' | 'bool' | 'int64';
const scalarFields: Record<string, Scalar> = {
  id: 'string',
  $schema: 'string',
  $ref: 'string',
  description: 'string',
  type: 'string',
  format: 'string',
  title: 'string',
  pattern: 'string',
  'x-kubernetes-list-type': 'string',
  'x-kubernetes-map-type': 'string',
  maximum: 'float64',
  minimum: 'float64',
  multipleOf: 'float64',
  exclusiveMaximum: 'bool',
  exclusiveMinimum: 'bool',
  uniqueItems: 'bool',
  nullable: 'bool',
  'x-kubernetes-preserve-unknown-fields': 'bool',
  'x-kubernetes-embedded-resource': 'bool',
  'x-kubernetes-int-or-string': 'bool',
  maxLength: 'int64',
  minLength: 'int64',
  maxItems: 'int64',
  minItems: 'int64',
  maxProperties: 'int64',
  minProperties: 'int64',
};

const fits = (value: unknown, type: Scalar): boolean =>
  type === 'string'
    ? typeof value === 'string'
    : type === 'bool'
      ? typeof value === 'boolean'
      : type === 'int64'
        ? Number.isInteger(value)
        : typeof value === 'number';

const ruleFields: Record<string, Scalar> = {
  rule: 'string',
  message: 'string',
  messageExpression: 'string',
  reason: 'string',
  fieldPath: 'string',
  optionalOldSelf: 'bool',
};

/** Checks a struct's scalar fields; a null one is dropped (its zero value). */
function checkScalars(node: Node, fields: Record<string, Scalar>, struct: string, path: string): void {
  for (const [key, type] of Object.entries(fields)) {
    if (!(key in node)) continue;
    const value = node[key];
    if (value === null) delete node[key];
    else if (!fits(value, type)) fail(value, struct, `${path}.${key}`, type === 'int64' ? 'int64' : type);
  }
}

function checkStrings(node: Node, key: string, struct: string, path: string): void {
  const value = node[key];
  if (value === undefined || value === null) return void delete node[key];
  if (!Array.isArray(value)) fail(value, struct, `${path}.${key}`, '[]string');
  for (const item of value as unknown[]) if (typeof item !== 'string') fail(item, struct, `${path}.${key}`, 'string');
}

/** One JSONSchemaProps (nulls inside dropped); throws a DecodeError for a value of the wrong type. */
function checkSchema(node: Node, path: string): void {
  checkScalars(node, scalarFields, 'JSONSchemaProps', path);
  for (const key of ['required', 'x-kubernetes-list-map-keys']) if (key in node) checkStrings(node, key, 'JSONSchemaProps', path);
  for (const key of ['properties', 'patternProperties', 'definitions']) {
    if (!(key in node)) continue;
    const value = node[key];
    if (value === null) {
      delete node[key];
      continue;
    }
    if (!isRecord(value)) fail(value, 'JSONSchemaProps', `${path}.${key}`, 'map[string]v1.JSONSchemaProps');
    for (const [name, child] of Object.entries(value as Node)) {
      // A null map value decodes to an empty schema.
      if (child === null) (value as Node)[name] = {};
      else if (!isRecord(child)) fail(child, 'JSONSchemaProps', `${path}.${key}`, 'v1.JSONSchemaProps');
      else checkSchema(child, `${path}.${key}`);
    }
  }
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    if (!(key in node)) continue;
    const value = node[key];
    if (value === null) {
      delete node[key];
      continue;
    }
    if (!Array.isArray(value)) fail(value, 'JSONSchemaProps', `${path}.${key}`, '[]v1.JSONSchemaProps');
    (value as unknown[]).forEach((child, index) => {
      if (child === null) (value as unknown[])[index] = {};
      else if (!isRecord(child)) fail(child, 'JSONSchemaProps', `${path}.${key}`, 'v1.JSONSchemaProps');
      else checkSchema(child, `${path}.${key}`);
    });
  }
  if ('not' in node) {
    const value = node['not'];
    if (value === null) delete node['not'];
    else if (!isRecord(value)) fail(value, 'JSONSchemaProps', `${path}.not`, 'v1.JSONSchemaProps');
    else checkSchema(value, `${path}.not`);
  }
  if ('items' in node) {
    const value = node['items'];
    if (value === null) delete node['items'];
    else if (Array.isArray(value)) value.forEach((child) => (isRecord(child) ? checkSchema(child, `${path}.items`) : fail(child, 'JSONSchemaProps', `${path}.items`, 'v1.JSONSchemaProps')));
    else if (!isRecord(value)) fail(value, 'JSONSchemaProps', `${path}.items`, 'v1.JSONSchemaPropsOrArray');
    else checkSchema(value, `${path}.items`);
  }
  for (const key of ['additionalProperties', 'additionalItems']) {
    if (!(key in node)) continue;
    const value = node[key];
    if (value === null) delete node[key];
    else if (isRecord(value)) checkSchema(value, `${path}.${key}`);
    else if (typeof value !== 'boolean') fail(value, 'JSONSchemaProps', `${path}.${key}`, 'v1.JSONSchemaPropsOrBool');
  }
  if ('externalDocs' in node) {
    const value = node['externalDocs'];
    if (value === null) delete node['externalDocs'];
    else if (!isRecord(value)) fail(value, 'JSONSchemaProps', `${path}.externalDocs`, 'v1.ExternalDocumentation');
    else checkScalars(value, { description: 'string', url: 'string' }, 'ExternalDocumentation', `${path}.externalDocs`);
  }
  if ('x-kubernetes-validations' in node) {
    const key = 'x-kubernetes-validations';
    const value = node[key];
    if (value === null) delete node[key];
    else if (!Array.isArray(value)) fail(value, 'JSONSchemaProps', `${path}.${key}`, 'v1.ValidationRules');
    else
      for (const rule of value as unknown[]) {
        if (!isRecord(rule)) fail(rule, 'JSONSchemaProps', `${path}.${key}`, 'v1.ValidationRule');
        checkScalars(rule as Node, ruleFields, 'ValidationRule', `${path}.${key}`);
      }
  }
}

/**
 * Why the CRD's version schemas would not decode into Go's JSONSchemaProps (a value of the wrong JSON
 * type), or undefined; nulls are dropped on the way, as decoding and encoding again would.
 */
export function schemaDecodeError(versions: unknown): string | undefined {
  if (!Array.isArray(versions)) return undefined;
  try {
    for (const version of versions) {
      const validation = isRecord(version) ? version['schema'] : undefined;
      if (!isRecord(validation)) continue;
      const schema = validation['openAPIV3Schema'];
      if (schema === null) delete validation['openAPIV3Schema'];
      else if (schema !== undefined) {
        if (!isRecord(schema)) fail(schema, 'CustomResourceValidation', 'spec.versions.schema.openAPIV3Schema', 'v1.JSONSchemaProps');
        checkSchema(schema as Node, 'spec.versions.schema.openAPIV3Schema');
      }
    }
  } catch (error) {
    if (error instanceof DecodeError) return error.message;
    throw error;
  }
  return undefined;
}
