import { RE2JS } from '@bufbuild/re2';
import type { FieldError } from '@kapi/apimachinery';
import { isRecord, propertySchemas, type SchemaNode } from './schema-node.js';

const forbidden = (field: string, detail: string): FieldError => ({
  field,
  type: 'FieldValueForbidden',
  detail,
});
const required = (field: string, detail: string): FieldError => ({
  field,
  type: 'FieldValueRequired',
  detail,
});
const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  field,
  type: 'FieldValueInvalid',
  value,
  detail,
});
const notSupported = (field: string, value: unknown, supported: string[]): FieldError => ({
  field,
  type: 'FieldValueNotSupported',
  value,
  detail: `supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`,
});

/** What value validations (allOf/anyOf/oneOf/not) may not specify to stay structural. */
const valueValidationForbidden: [string, string][] = [
  ['type', 'must be empty to be structural'],
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['additionalProperties', 'must be undefined to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-type', 'must be empty to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-map-type', 'must be empty to be structural'],
  ['x-kubernetes-validations', 'must be empty to be structural'],
];

const unsupported: [string, string][] = [
  ['$ref', '$ref is not supported'],
  ['definitions', 'definitions is not supported'],
  ['dependencies', 'dependencies is not supported'],
  ['patternProperties', 'patternProperties is not supported'],
  ['additionalItems', 'additionalItems is not supported'],
];

function isScalar(schema: SchemaNode | undefined): boolean {
  const type = schema?.['type'];
  return (
    schema?.['x-kubernetes-int-or-string'] === true ||
    type === 'string' ||
    type === 'integer' ||
    type === 'number' ||
    type === 'boolean'
  );
}

function isAtomic(schema: SchemaNode | undefined): boolean {
  if (isScalar(schema)) return true;
  if (schema?.['type'] === 'array') return (schema['x-kubernetes-list-type'] ?? 'atomic') === 'atomic';
  if (schema?.['type'] === 'object') return schema['x-kubernetes-map-type'] === 'atomic';
  return false;
}

/** A `pattern` must compile as Go's regexp (RE2) compiles it, with Go's error text. */
function checkPattern(schema: SchemaNode, path: string, errors: FieldError[]): void {
  const pattern = schema['pattern'];
  if (typeof pattern !== 'string' || pattern === '') return;
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    errors.push(invalid(`${path}.pattern`, pattern, `must be a valid regular expression, but isn't: ${reason}`));
  }
}

function checkValueValidation(schema: SchemaNode, path: string, errors: FieldError[]): void {
  checkPattern(schema, path, errors);
  for (const [keyword, detail] of valueValidationForbidden) {
    const value = schema[keyword];
    if (value !== undefined && value !== false && value !== '')
      errors.push(forbidden(`${path}.${keyword}`, detail));
  }
  for (const [name, child] of propertySchemas(schema))
    checkValueValidation(child, `${path}.properties[${name}]`, errors);
  if (isRecord(schema['items'])) checkValueValidation(schema['items'], `${path}.items`, errors);
  for (const keyword of ['allOf', 'anyOf', 'oneOf'])
    (Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]) : []).forEach((branch, index) => {
      if (isRecord(branch)) checkValueValidation(branch, `${path}.${keyword}[${index}]`, errors);
    });
  if (isRecord(schema['not'])) checkValueValidation(schema['not'], `${path}.not`, errors);
}

/** Fields a value validation names must be declared in the structural part of the schema too. */
function checkCompleteness(
  branch: SchemaNode,
  structural: SchemaNode,
  branchPath: string,
  errors: FieldError[],
): void {
  const declared = propertySchemas(structural);
  for (const [name, child] of propertySchemas(branch)) {
    const counterpart = declared.get(name);
    if (counterpart === undefined)
      errors.push(
        required(
          `${branchPath}.properties[${name}]`,
          `because it is defined in ${branchPath}.properties[${name}]`,
        ),
      );
    else checkCompleteness(child, counterpart, `${branchPath}.properties[${name}]`, errors);
  }
  if (isRecord(branch['items']) && !isRecord(structural['items']))
    errors.push(required(`${branchPath}.items`, `because it is defined in ${branchPath}.items`));
}

function checkLists(schema: SchemaNode, path: string, errors: FieldError[]): void {
  const listType = schema['x-kubernetes-list-type'];
  const keys = schema['x-kubernetes-list-map-keys'];
  const items = isRecord(schema['items']) ? schema['items'] : undefined;
  if (listType !== undefined) {
    if (schema['type'] !== 'array')
      errors.push(invalid(`${path}.x-kubernetes-list-type`, listType, 'must only be used if type is array'));
    else if (listType !== 'atomic' && listType !== 'set' && listType !== 'map')
      errors.push(notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (listType === 'set' && items !== undefined && !isAtomic(items))
    errors.push(
      invalid(
        `${path}.items.x-kubernetes-map-type`,
        items['x-kubernetes-map-type'] ?? null,
        'must be atomic as item of a list with x-kubernetes-list-type=set',
      ),
    );
  if (listType === 'map') {
    if (!Array.isArray(keys) || keys.length === 0)
      errors.push(
        required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'),
      );
    if (items !== undefined && items['type'] !== 'object')
      errors.push(
        invalid(
          `${path}.items.type`,
          items['type'] ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    else if (items !== undefined && Array.isArray(keys)) {
      const properties = propertySchemas(items);
      const requiredNames = Array.isArray(items['required']) ? items['required'] : [];
      keys.forEach((key: unknown, index) => {
        const property = typeof key === 'string' ? properties.get(key) : undefined;
        const keyPath = `${path}.x-kubernetes-list-map-keys[${index}]`;
        if (property === undefined)
          errors.push(invalid(keyPath, key, 'entries must all be names of item properties'));
        else if (!isScalar(property))
          errors.push(invalid(keyPath, key, 'must be a scalar type if used as a map key'));
        else if (!requiredNames.includes(key) && property['default'] === undefined)
          errors.push(
            required(
              `${path}.items.required`,
              `all map keys must be required or have a default value: ${String(key)}`,
            ),
          );
        else if (property['nullable'] === true)
          errors.push(invalid(keyPath, key, 'must not be nullable if used as a map key'));
      });
    }
  } else if (keys !== undefined)
    errors.push(
      forbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty if x-kubernetes-list-type is not map'),
    );
  const mapType = schema['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    if (schema['type'] !== 'object')
      errors.push(invalid(`${path}.x-kubernetes-map-type`, mapType, 'must only be used if type is object'));
    else if (mapType !== 'atomic' && mapType !== 'granular')
      errors.push(notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
}

function checkNode(schema: SchemaNode, path: string, isRoot: boolean, errors: FieldError[]): void {
  const type = schema['type'];
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'];
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const properties = propertySchemas(schema);
  if (isRoot) {
    if (type === undefined || type === '')
      errors.push(required(`${path}.type`, 'must not be empty at the root'));
    else if (type !== 'object') errors.push(invalid(`${path}.type`, type, 'must be object at the root'));
    if (schema['nullable'] === true)
      errors.push(invalid(`${path}.nullable`, true, 'must be false at the root'));
    if (schema['additionalProperties'] !== undefined)
      errors.push(forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
  } else if ((type === undefined || type === '') && !intOrString && preserve !== true) {
    const what =
      properties.size > 0
        ? 'for specified object fields'
        : isRecord(schema['items'])
          ? 'for specified array items'
          : '';
    errors.push(required(`${path}.type`, what === '' ? 'must not be empty' : `must not be empty ${what}`));
  }
  if (preserve === false)
    errors.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  if (
    properties.size > 0 &&
    schema['additionalProperties'] !== undefined &&
    schema['additionalProperties'] !== false
  )
    errors.push(
      forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'),
    );
  if (schema['uniqueItems'] === true)
    errors.push(
      forbidden(
        `${path}.uniqueItems`,
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  for (const [keyword, detail] of unsupported)
    if (schema[keyword] !== undefined) errors.push(forbidden(`${path}.${keyword}`, detail));
  if (Array.isArray(schema['items']))
    errors.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (type === 'array' && schema['items'] === undefined)
    errors.push(required(`${path}.items`, 'must be specified'));
  if (embedded && type !== 'object')
    errors.push(
      invalid(`${path}.type`, type ?? '', 'must be object if x-kubernetes-embedded-resource is true'),
    );
  if (embedded && preserve !== true && properties.size === 0)
    errors.push(
      required(
        `${path}.properties`,
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  if (intOrString) {
    if (type !== undefined && type !== '')
      errors.push(invalid(`${path}.type`, type, 'must be empty if x-kubernetes-int-or-string is true'));
    if (preserve === true)
      errors.push(
        invalid(
          `${path}.x-kubernetes-preserve-unknown-fields`,
          true,
          'must be false if x-kubernetes-int-or-string is true',
        ),
      );
    if (embedded)
      errors.push(
        invalid(
          `${path}.x-kubernetes-embedded-resource`,
          true,
          'must be false if x-kubernetes-int-or-string is true',
        ),
      );
  }
  checkPattern(schema, path, errors);
  checkLists(schema, path, errors);
  if (isRoot && properties.has('metadata'))
    checkRootMetadata(properties.get('metadata') as SchemaNode, `${path}.properties[metadata]`, errors);
  for (const [name, child] of properties) checkNode(child, `${path}.properties[${name}]`, false, errors);
  if (isRecord(schema['items'])) checkNode(schema['items'], `${path}.items`, false, errors);
  if (isRecord(schema['additionalProperties']))
    checkNode(schema['additionalProperties'], `${path}.additionalProperties`, false, errors);
  for (const keyword of ['allOf', 'anyOf', 'oneOf'])
    (Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]) : []).forEach((branch, index) => {
      if (!isRecord(branch)) return;
      const branchPath = `${path}.${keyword}[${index}]`;
      if (!(intOrString && keyword === 'anyOf')) checkValueValidation(branch, branchPath, errors);
      checkCompleteness(branch, schema, branchPath, errors);
    });
  if (isRecord(schema['not'])) {
    checkValueValidation(schema['not'], `${path}.not`, errors);
    checkCompleteness(schema['not'], schema, `${path}.not`, errors);
  }
}

function checkRootMetadata(metadata: SchemaNode, path: string, errors: FieldError[]): void {
  if (metadata['type'] !== undefined && metadata['type'] !== 'object')
    errors.push(invalid(`${path}.type`, metadata['type'], 'must be object'));
  const allowed = new Set(['type', 'properties']);
  const extra = Object.keys(metadata).filter((key) => !allowed.has(key));
  const names = [...propertySchemas(metadata).keys()].filter(
    (name) => name !== 'name' && name !== 'generateName',
  );
  if (extra.length > 0 || names.length > 0)
    errors.push(
      forbidden(
        path,
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
}

/** The structural-schema violations of a CRD version's schema, under `path` (upstream's paths and messages). */
export function structuralErrors(schema: SchemaNode, path: string): FieldError[] {
  const errors: FieldError[] = [];
  checkNode(schema, path, true, errors);
  return errors;
}
