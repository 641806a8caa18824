import type { FieldError } from './status-error.js';
import {
  asSchema,
  childPath,
  compiledPattern,
  indexPath,
  isJsonObject,
  jsonTypeOf,
  keyPath,
  mapValueSchema,
  typesOf,
  type JsonSchema,
} from './json-schema.js';
import { schemaFacts, type SchemaFacts } from './schema-facts.js';

function invalid(field: string, value: unknown, detail: string): FieldError {
  return { field, type: 'FieldValueInvalid', value, detail };
}

function quoteValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
}

function notSupported(field: string, value: unknown, supported: unknown[]): FieldError {
  const list = supported
    .map((item) => JSON.stringify(typeof item === 'string' ? item : JSON.stringify(item)))
    .join(', ');
  return { field, type: 'FieldValueNotSupported', value, detail: `supported values: ${list}` };
}

function typeMatches(expected: string, value: unknown): boolean {
  const actual = jsonTypeOf(value);
  if (expected === actual) return true;
  return expected === 'number' && actual === 'integer';
}

/** The value list of an enum: `enum`, or an anyOf/oneOf made only of `const`s (TypeBox unions of literals). */
function enumValues(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema['enum'])) return schema['enum'];
  for (const keyword of branchKeywords) {
    const list = schema[keyword];
    if (
      Array.isArray(list) &&
      list.length > 0 &&
      list.every((item) => asSchema(item)?.['const'] !== undefined)
    ) {
      return list.map((item) => asSchema(item)?.['const']);
    }
  }
  return undefined;
}

const branchKeywords = ['anyOf', 'oneOf'] as const;

/** The values a schema allows, found once per schema object (schemas are not changed once validation uses them). */
interface SchemaEnum {
  enumValues: unknown[] | undefined;
  /** `const`. */
  constant: unknown;
}

const schemaEnums = new WeakMap<JsonSchema, SchemaEnum>();

/** The enum and const of a schema. */
function enumOf(schema: JsonSchema): SchemaEnum {
  let found = schemaEnums.get(schema);
  if (found === undefined) {
    found = { enumValues: enumValues(schema), constant: schema['const'] };
    schemaEnums.set(schema, found);
  }
  return found;
}

function sameJson(left: unknown, right: unknown): boolean {
  return left === right || JSON.stringify(left) === JSON.stringify(right);
}

/**
 * Validates `value` against a JSON schema and returns Kubernetes-style field errors (paths like
 * `spec.metrics[0].type`, messages like `spec.replicas in body must be of type integer: "string"`).
 */
export function validateAgainstSchema(value: unknown, schema: JsonSchema, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  validateNode(value, schema, path, errors);
  return errors;
}

function validateNode(value: unknown, schema: JsonSchema, path: string, errors: FieldError[]): void {
  const label = path === '' ? '<root>' : path;
  const facts = schemaFacts(schema);
  if (value === null && facts.nullable) return;
  if (facts.intOrString) {
    if (typeof value !== 'string' && !Number.isInteger(value)) {
      errors.push(
        invalid(
          path,
          jsonTypeOf(value),
          `${label} in body must be of type integer-or-string: ${quoteValue(jsonTypeOf(value))}`,
        ),
      );
      return;
    }
  } else {
    if (!typeAllows(facts.type, value)) {
      const types = typesOf(schema);
      const actual = jsonTypeOf(value);
      errors.push(
        invalid(path, actual, `${label} in body must be of type ${types.join(',')}: ${quoteValue(actual)}`),
      );
      return;
    }
  }
  const { enumValues: options, constant } = enumOf(schema);
  if (options !== undefined) {
    if (!options.some((option) => sameJson(option, value))) errors.push(notSupported(path, value, options));
  } else if (constant !== undefined && !sameJson(constant, value)) {
    errors.push(notSupported(path, value, [constant]));
  }
  if (facts.hasBranches) validateBranches(value, schema, path, errors, options !== undefined);
  if (typeof value === 'string') {
    if (facts.checksStrings) validateString(value, schema, path, label, errors);
  } else if (typeof value === 'number') {
    if (facts.checksNumbers) validateNumber(value, schema, path, label, errors);
  } else if (Array.isArray(value)) validateArray(value, schema, facts, path, label, errors);
  else if (isJsonObject(value)) validateObject(value, schema, facts, path, label, errors);
}

/** True when `value` has one of the declared types `type` (a schema's, as written), or it declares none: `typesOf` without its array. */
function typeAllows(type: unknown, value: unknown): boolean {
  if (typeof type === 'string') return typeMatches(type, value);
  if (!Array.isArray(type)) return true;
  let declared = false;
  for (const item of type) {
    if (typeof item !== 'string') continue;
    if (typeMatches(item, value)) return true;
    declared = true;
  }
  return !declared;
}

function validateBranches(
  value: unknown,
  schema: JsonSchema,
  path: string,
  errors: FieldError[],
  isEnum: boolean,
): void {
  const allOf = schema['allOf'];
  if (Array.isArray(allOf))
    for (const branch of allOf) {
      const sub = asSchema(branch);
      if (sub) validateNode(value, sub, path, errors);
    }
  if (isEnum) return;
  for (const keyword of branchKeywords) {
    const list = schema[keyword];
    if (!Array.isArray(list) || list.length === 0) continue;
    let best: FieldError[] | undefined;
    for (const branch of list) {
      const sub = asSchema(branch);
      if (!sub) continue;
      const branchErrors = validateAgainstSchema(value, sub, path);
      if (branchErrors.length === 0) {
        best = [];
        break;
      }
      if (best === undefined || branchErrors.length < best.length) best = branchErrors;
    }
    if (best) errors.push(...best);
  }
}

const dateTimePattern = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** String formats checked (as kube-openapi's strfmt does); other formats are informational. */
const formatChecks: Record<string, (value: string) => boolean> = {
  // metav1.Time reads "" as unset, so the empty string passes.
  'date-time': (value) =>
    value === '' || (dateTimePattern.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')))),
  byte: (value) => base64Pattern.test(value),
};

/** The number of Unicode code points (a surrogate pair counts once), without splitting the string. */
export function codePointLength(value: string): number {
  let length = value.length;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        index++;
      }
    }
  }
  return length;
}

function validateString(
  value: string,
  schema: JsonSchema,
  path: string,
  label: string,
  errors: FieldError[],
): void {
  const { minLength, maxLength, pattern, format } = schema;
  const length = typeof maxLength === 'number' || typeof minLength === 'number' ? codePointLength(value) : 0;
  const check = typeof format === 'string' ? formatChecks[format] : undefined;
  if (check && !check(value)) {
    errors.push(
      invalid(path, value, `${label} in body must be of type ${String(format)}: ${JSON.stringify(value)}`),
    );
  }
  if (typeof maxLength === 'number' && length > maxLength) {
    errors.push({
      field: path,
      type: 'FieldValueTooLong',
      value,
      detail: `may not be more than ${maxLength} bytes`,
    });
  }
  if (typeof minLength === 'number' && length < minLength) {
    errors.push(invalid(path, value, `${label} in body should be at least ${minLength} chars long`));
  }
  if (typeof pattern === 'string' && !compiledPattern(pattern).test(value)) {
    errors.push(invalid(path, value, `${label} in body should match '${pattern}'`));
  }
}

/** Ranges of the integer formats: a value outside cannot be decoded into the Go field. */
const integerFormatRanges: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
};

function validateNumber(
  value: number,
  schema: JsonSchema,
  path: string,
  label: string,
  errors: FieldError[],
): void {
  const range = typeof schema['format'] === 'string' ? integerFormatRanges[schema['format']] : undefined;
  if (range && (value < range[0] || value > range[1])) {
    errors.push(invalid(path, value, `${label} in body must be of type ${String(schema['format'])}: ${JSON.stringify(value)}`));
    return;
  }
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  if (typeof minimum === 'number') {
    if (exclusiveMinimum === true ? value <= minimum : value < minimum) {
      const relation = exclusiveMinimum === true ? 'greater than' : 'greater than or equal to';
      errors.push(invalid(path, value, `${label} in body should be ${relation} ${minimum}`));
    }
  }
  if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) {
    errors.push(invalid(path, value, `${label} in body should be greater than ${exclusiveMinimum}`));
  }
  if (typeof maximum === 'number') {
    if (exclusiveMaximum === true ? value >= maximum : value > maximum) {
      const relation = exclusiveMaximum === true ? 'less than' : 'less than or equal to';
      errors.push(invalid(path, value, `${label} in body should be ${relation} ${maximum}`));
    }
  }
  if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum) {
    errors.push(invalid(path, value, `${label} in body should be less than ${exclusiveMaximum}`));
  }
  if (typeof multipleOf === 'number' && multipleOf > 0 && !Number.isInteger(value / multipleOf)) {
    errors.push(invalid(path, value, `${label} in body should be a multiple of ${multipleOf}`));
  }
}

function validateArray(
  value: unknown[],
  schema: JsonSchema,
  facts: SchemaFacts,
  path: string,
  label: string,
  errors: FieldError[],
): void {
  if (facts.checksLists) validateListKeywords(value, schema, path, label, errors);
  const items = facts.items;
  if (items) value.forEach((item, index) => validateNode(item, items, indexPath(path, index), errors));
}

/** minItems, maxItems and the uniqueness of a set's items or a map-list's keys. */
function validateListKeywords(value: unknown[], schema: JsonSchema, path: string, label: string, errors: FieldError[]): void {
  const { minItems, maxItems } = schema;
  if (typeof maxItems === 'number' && value.length > maxItems) {
    errors.push({
      field: path,
      type: 'FieldValueTooMany',
      value: value.length,
      detail: `must have at most ${maxItems} items`,
    });
  }
  if (typeof minItems === 'number' && value.length < minItems) {
    errors.push(invalid(path, value, `${label} in body should have at least ${minItems} items`));
  }
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set' || schema['uniqueItems'] === true) {
    const seen = new Set<string>();
    value.forEach((item, index) => {
      const key = JSON.stringify(item);
      if (seen.has(key))
        errors.push({ field: indexPath(path, index), type: 'FieldValueDuplicate', value: item, detail: '' });
      seen.add(key);
    });
  } else if (listType === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys'])) {
    const keys = schema['x-kubernetes-list-map-keys'].filter((key): key is string => typeof key === 'string');
    const seen = new Set<string>();
    value.forEach((item, index) => {
      if (!isJsonObject(item)) return;
      const identity: Record<string, unknown> = {};
      for (const key of keys) identity[key] = item[key];
      const rendered = JSON.stringify(identity);
      if (seen.has(rendered))
        errors.push({
          field: indexPath(path, index),
          type: 'FieldValueDuplicate',
          value: identity,
          detail: '',
        });
      seen.add(rendered);
    });
  }
}

function validateObject(
  value: Record<string, unknown>,
  schema: JsonSchema,
  facts: SchemaFacts,
  path: string,
  label: string,
  errors: FieldError[],
): void {
  const required = facts.required;
  if (required)
    for (const name of required) {
      if (typeof name === 'string' && value[name] === undefined) {
        errors.push({ field: childPath(path, name), type: 'FieldValueRequired', detail: '' });
      }
    }
  if (facts.countsProperties) validatePropertyCount(value, schema, path, label, errors);
  const properties = facts.ownProperties;
  // for-in, not entries or keys: no array per object validated (decoded objects inherit no enumerable keys).
  for (const key in value) {
    const child = value[key];
    if (child === undefined) continue;
    const property = properties.get(key);
    if (property) validateNode(child, property, childPath(path, key), errors);
    else if (facts.ownMapValues) {
      const mapSchema = mapValueSchema(schema, key, true);
      if (mapSchema) validateNode(child, mapSchema, keyPath(path, key), errors);
    }
  }
}

function validatePropertyCount(value: Record<string, unknown>, schema: JsonSchema, path: string, label: string, errors: FieldError[]): void {
  const count = Object.keys(value).length;
  const { minProperties, maxProperties } = schema;
  if (typeof maxProperties === 'number' && count > maxProperties) {
    errors.push({
      field: path,
      type: 'FieldValueTooMany',
      value: count,
      detail: `must have at most ${maxProperties} items`,
    });
  }
  if (typeof minProperties === 'number' && count < minProperties) {
    errors.push(invalid(path, count, `${label} in body should have at least ${minProperties} properties`));
  }
}

/**
 * True when some value in `value` has a JSON type its schema does not allow (what Go's typed decode would
 * refuse): the type checks of {@link validateAgainstSchema} alone, without building errors. A kind's
 * defaulter and validator only run on well-typed objects, as upstream's do on decoded structs.
 */
export function hasTypeMismatch(value: unknown, schema: JsonSchema): boolean {
  const facts = schemaFacts(schema);
  if (value === null && facts.nullable) return false;
  if (facts.intOrString) {
    if (typeof value !== 'string' && !Number.isInteger(value)) return true;
  } else if (!typeAllows(facts.type, value)) {
    return true;
  }
  if (facts.hasBranches && hasBranchTypeMismatch(value, schema)) return true;
  if (Array.isArray(value)) {
    const items = facts.items;
    return items !== undefined && value.some((item) => hasTypeMismatch(item, items));
  }
  if (!isJsonObject(value)) return false;
  const properties = facts.ownProperties;
  // for-in, not keys: no array per object checked (decoded objects inherit no enumerable keys).
  for (const key in value) {
    const child = value[key];
    if (child === undefined) continue;
    const childSchema = properties.get(key) ?? (facts.ownMapValues ? mapValueSchema(schema, key, true) : undefined);
    if (childSchema && hasTypeMismatch(child, childSchema)) return true;
  }
  return false;
}

/** A type mismatch with an allOf branch, or with every anyOf (oneOf) branch. */
function hasBranchTypeMismatch(value: unknown, schema: JsonSchema): boolean {
  const allOf = schema['allOf'];
  if (Array.isArray(allOf) && allOf.some((branch) => hasTypeMismatchIn(value, branch))) return true;
  for (const keyword of branchKeywords) {
    const list = schema[keyword];
    if (Array.isArray(list) && list.length > 0 && list.every((branch) => hasTypeMismatchIn(value, branch))) return true;
  }
  return false;
}

function hasTypeMismatchIn(value: unknown, branch: unknown): boolean {
  const schema = asSchema(branch);
  return schema !== undefined && hasTypeMismatch(value, schema);
}
