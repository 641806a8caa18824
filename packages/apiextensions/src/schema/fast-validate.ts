import { codePointLength, compiledPattern, validateAgainstSchema, type PatternMatcher } from '@kapi/apimachinery';
import { isRecord, type SchemaNode } from './schema-node.js';
import { stringFormatChecks } from './string-formats.js';

/**
 * A check compiled once per schema node: true only when the general validation of a value under that node
 * (apimachinery's `validateAgainstSchema`, then the format and `not` checks of `validateOpenAPI`) would
 * report nothing. It builds no paths, labels or errors, and reads the schema's keywords at compile time
 * instead of per value. False says nothing more: the general validation then runs for the exact errors.
 */
export type ValidityCheck = (value: unknown) => boolean;

/** The string formats apimachinery's validation checks itself (its own rules, not repeated here). */
const apimachineryFormats = new Set(['date-time', 'byte']);

const integerFormatRanges: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
};

/** The pattern as apimachinery's validation compiles it (RegExp, else RE2); undefined when neither reads it. */
function compilePattern(pattern: unknown): PatternMatcher | undefined {
  if (typeof pattern !== 'string') return undefined;
  try {
    return compiledPattern(pattern);
  } catch {
    return undefined;
  }
}

/** apimachinery's enum equality. */
function sameJson(left: unknown, right: unknown): boolean {
  return left === right || JSON.stringify(left) === JSON.stringify(right);
}

/** apimachinery's type test: `type` against the value's JSON type (`integer` for whole numbers; a number accepts one). */
function typeTest(type: string): ValidityCheck {
  switch (type) {
    case 'string':
    case 'boolean':
      return (value) => typeof value === type;
    case 'integer':
      return (value) => typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return (value) => typeof value === 'number';
    case 'array':
      return (value) => Array.isArray(value);
    case 'object':
      return (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'null':
      return (value) => value === null;
    default:
      return () => false;
  }
}

/** The general format and `not` check of `value` under `schema` (validateOpenAPI's own): true when it reports nothing. */
export type ExtrasCheck = (value: unknown, schema: SchemaNode) => boolean;

/** The general validation of a subtree, for what the compiled checks leave out (branches, `not`, ...). */
function general(schema: SchemaNode, extras: ExtrasCheck): ValidityCheck {
  return (value) => validateAgainstSchema(value, schema).length === 0 && extras(value, schema);
}

/** Keywords whose rules the compiled checks do not cover: a node with any of them is checked generally. */
const generalKeywords = ['allOf', 'anyOf', 'oneOf', 'not', 'patternProperties'];

/** A schema is a JSON tree (structural schemas have no references): each node is compiled once. */
function compileNode(schema: SchemaNode, extras: ExtrasCheck, cache: Map<SchemaNode, ValidityCheck>): ValidityCheck {
  let compiled = cache.get(schema);
  if (compiled === undefined) {
    compiled = compileChecks(schema, extras, cache);
    cache.set(schema, compiled);
  }
  return compiled;
}

function compileChecks(schema: SchemaNode, extras: ExtrasCheck, cache: Map<SchemaNode, ValidityCheck>): ValidityCheck {
  const format = schema['format'];
  if (
    generalKeywords.some((keyword) => schema[keyword] !== undefined) ||
    (typeof format === 'string' && apimachineryFormats.has(format)) ||
    // A pattern that does not compile fails the general validation its own way (it throws).
    (typeof schema['pattern'] === 'string' && compilePattern(schema['pattern']) === undefined)
  )
    return general(schema, extras);
  const checks: ValidityCheck[] = [];
  const typeValue = schema['type'];
  const types = typeof typeValue === 'string' ? [typeValue] : Array.isArray(typeValue) ? typeValue.filter((t): t is string => typeof t === 'string') : [];
  const nullable = schema['nullable'] === true || types.includes('null');
  if (schema['x-kubernetes-int-or-string'] === true) {
    checks.push((value) => typeof value === 'string' || Number.isInteger(value));
  } else if (types.length === 1) {
    checks.push(typeTest(types[0]!));
  } else if (types.length > 1) {
    const tests = types.map(typeTest);
    checks.push((value) => tests.some((test) => test(value)));
  }
  const options = schema['enum'];
  if (Array.isArray(options)) checks.push((value) => options.some((option) => sameJson(option, value)));
  else if (schema['const'] !== undefined) {
    const constant = schema['const'];
    checks.push((value) => sameJson(constant, value));
  }
  const stringCheck = compileString(schema, format);
  const numberCheck = compileNumber(schema, format);
  const arrayCheck = compileArray(schema, extras, cache);
  const objectCheck = compileObject(schema, extras, cache);
  const own = checks;
  return (value) => {
    if (value === null && nullable) return true;
    for (let index = 0; index < own.length; index++) if (!own[index]!(value)) return false;
    if (typeof value === 'string') return stringCheck === undefined || stringCheck(value);
    if (typeof value === 'number') return numberCheck === undefined || numberCheck(value);
    if (Array.isArray(value)) return arrayCheck(value);
    if (isRecord(value)) return objectCheck(value);
    return true;
  };
}

function compileString(schema: SchemaNode, format: unknown): ((value: string) => boolean) | undefined {
  const { minLength, maxLength, pattern } = schema;
  const checks: ((value: string) => boolean)[] = [];
  const formatCheck = typeof format === 'string' ? stringFormatChecks[format] : undefined;
  if (formatCheck !== undefined) checks.push(formatCheck);
  const max = typeof maxLength === 'number' ? maxLength : undefined;
  const min = typeof minLength === 'number' ? minLength : undefined;
  if (max !== undefined || min !== undefined)
    checks.push((value) => {
      // A string has at most as many code points as UTF-16 units: one no longer than max needs no count.
      if (max !== undefined && value.length > max && codePointLength(value) > max) return false;
      return !(min !== undefined && min > 0 && codePointLength(value) < min);
    });
  const expression = compilePattern(pattern);
  if (expression !== undefined) checks.push((value) => expression.test(value));
  if (checks.length === 0) return undefined;
  return (value) => checks.every((check) => check(value));
}

function compileNumber(schema: SchemaNode, format: unknown): ((value: number) => boolean) | undefined {
  const range = typeof format === 'string' ? integerFormatRanges[format] : undefined;
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  const checks: ((value: number) => boolean)[] = [];
  if (range) checks.push((value) => !(value < range[0] || value > range[1]));
  if (typeof minimum === 'number')
    checks.push(exclusiveMinimum === true ? (value) => !(value <= minimum) : (value) => !(value < minimum));
  if (typeof exclusiveMinimum === 'number') checks.push((value) => !(value <= exclusiveMinimum));
  if (typeof maximum === 'number')
    checks.push(exclusiveMaximum === true ? (value) => !(value >= maximum) : (value) => !(value > maximum));
  if (typeof exclusiveMaximum === 'number') checks.push((value) => !(value >= exclusiveMaximum));
  if (typeof multipleOf === 'number' && multipleOf > 0) checks.push((value) => Number.isInteger(value / multipleOf));
  if (checks.length === 0) return undefined;
  return (value) => checks.every((check) => check(value));
}

function compileArray(schema: SchemaNode, extras: ExtrasCheck, cache: Map<SchemaNode, ValidityCheck>): (value: unknown[]) => boolean {
  const { minItems, maxItems } = schema;
  const max = typeof maxItems === 'number' ? maxItems : undefined;
  const min = typeof minItems === 'number' ? minItems : undefined;
  const listType = schema['x-kubernetes-list-type'];
  const mapKeys = schema['x-kubernetes-list-map-keys'];
  const isSet = listType === 'set' || schema['uniqueItems'] === true;
  const keys = !isSet && listType === 'map' && Array.isArray(mapKeys) ? mapKeys.filter((key): key is string => typeof key === 'string') : undefined;
  const items = isRecord(schema['items']) ? compileNode(schema['items'], extras, cache) : undefined;
  return (value) => {
    if (max !== undefined && value.length > max) return false;
    if (min !== undefined && value.length < min) return false;
    if (isSet && value.length > 1) {
      const seen = new Set<string>();
      for (const item of value) {
        const key = JSON.stringify(item);
        if (seen.has(key)) return false;
        seen.add(key);
      }
    } else if (keys !== undefined && value.length > 1 && !uniqueMapKeys(value, keys)) return false;
    if (items !== undefined) for (let index = 0; index < value.length; index++) if (!items(value[index])) return false;
    return true;
  };
}

/** No two object items of a map list with the same key values (as apimachinery renders them). */
function uniqueMapKeys(value: unknown[], keys: string[]): boolean {
  const seen = new Set<string>();
  for (const item of value) {
    if (!isRecord(item)) continue;
    const identity: Record<string, unknown> = {};
    for (const key of keys) identity[key] = item[key];
    const rendered = JSON.stringify(identity);
    if (seen.has(rendered)) return false;
    seen.add(rendered);
  }
  return true;
}

function compileObject(schema: SchemaNode, extras: ExtrasCheck, cache: Map<SchemaNode, ValidityCheck>): (value: Record<string, unknown>) => boolean {
  const declaredRequired = schema['required'];
  const required = Array.isArray(declaredRequired) ? declaredRequired.filter((name): name is string => typeof name === 'string') : [];
  const { minProperties, maxProperties } = schema;
  const max = typeof maxProperties === 'number' ? maxProperties : undefined;
  const min = typeof minProperties === 'number' ? minProperties : undefined;
  const properties = new Map<string, ValidityCheck>();
  const declared = schema['properties'];
  if (isRecord(declared))
    for (const [name, child] of Object.entries(declared)) if (isRecord(child)) properties.set(name, compileNode(child, extras, cache));
  const additional = isRecord(schema['additionalProperties']) ? compileNode(schema['additionalProperties'], extras, cache) : undefined;
  return (value) => {
    for (let index = 0; index < required.length; index++) if (value[required[index]!] === undefined) return false;
    if (max !== undefined || min !== undefined) {
      const count = Object.keys(value).length;
      if ((max !== undefined && count > max) || (min !== undefined && count < min)) return false;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const child = value[key];
      if (child === undefined) continue;
      const check = properties.get(key) ?? additional;
      if (check !== undefined && !check(child)) return false;
    }
    return true;
  };
}

/**
 * Compiles the validity check of a schema (the body schema `validateOpenAPI` validates against); `extras`
 * is the general format/`not` check of a subtree, used where the compiled checks fall back to the general
 * validation.
 */
export function compileValidityCheck(schema: SchemaNode, extras: ExtrasCheck): ValidityCheck {
  return compileNode(schema, extras, new Map());
}
