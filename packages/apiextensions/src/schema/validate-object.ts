import { validateAgainstSchema, type FieldError } from '@kapi/apimachinery';
import { childPath, isRecord, type SchemaNode } from './schema-node.js';
import { schemaFacts } from './schema-facts.js';
import { stringFormatChecks } from './string-formats.js';
import { compileValidityCheck } from './fast-validate.js';

/**
 * Upstream reports type mismatches as TypeInvalid, int-or-string as `integer,string`, and TooLong without the
 * value (`Too long: may not be more than 5 bytes`).
 */
function upstreamShape(error: FieldError): FieldError {
  if (error.type === 'FieldValueTooLong') {
    const { value, ...rest } = error;
    void value;
    return rest;
  }
  if (!error.detail.includes(' in body must be of type ')) return error;
  return {
    ...error,
    type: 'FieldValueTypeInvalid',
    detail: error.detail.replace('must be of type integer-or-string:', 'must be of type integer,string:'),
  };
}

const hasExtras = new WeakMap<SchemaNode, boolean>();

/** Whether a format check or a `not` sits at or under `schema` (computed once per node; most subtrees have none). */
function needsExtras(schema: SchemaNode): boolean {
  let found = hasExtras.get(schema);
  if (found === undefined) {
    const format = schema['format'];
    const facts = schemaFacts(schema);
    found =
      (typeof format === 'string' && stringFormatChecks[format] !== undefined) ||
      isRecord(schema['not']) ||
      [...facts.properties.values()].some(needsExtras) ||
      (facts.additionalProperties !== undefined && needsExtras(facts.additionalProperties)) ||
      (facts.items !== undefined && needsExtras(facts.items));
    hasExtras.set(schema, found);
  }
  return found;
}

/** Formats and `not`, which apimachinery's validation leaves to the caller. */
function checkExtras(value: unknown, schema: SchemaNode, path: string, errors: FieldError[]): void {
  if (!needsExtras(schema)) return;
  const label = path === '' ? '<root>' : path;
  const format = schema['format'];
  if (typeof value === 'string' && typeof format === 'string') {
    const check = stringFormatChecks[format];
    if (check && !check(value))
      errors.push({
        field: path,
        type: 'FieldValueInvalid',
        value,
        detail: `${label} in body must be of type ${format}: ${JSON.stringify(value)}`,
      });
  }
  const not = schema['not'];
  if (isRecord(not) && value !== undefined && validateAgainstSchema(value, not, path).length === 0)
    errors.push({
      field: path,
      type: 'FieldValueInvalid',
      value,
      detail: `${label} in body must not validate the schema (not)`,
    });
  if (Array.isArray(value)) {
    const items = schemaFacts(schema).items;
    if (items) value.forEach((item, index) => checkExtras(item, items, `${path}[${index}]`, errors));
  } else if (isRecord(value)) {
    const { properties, additionalProperties } = schemaFacts(schema);
    for (const [key, child] of Object.entries(value)) {
      const property = properties.get(key);
      if (property) checkExtras(child, property, childPath(path, key), errors);
      else if (additionalProperties) checkExtras(child, additionalProperties, `${path}[${key}]`, errors);
    }
  }
}

const typeMeta = new Set(['metadata', 'apiVersion', 'kind']);

/** The root schema without apiVersion, kind and metadata, which TypeMeta/ObjectMeta validation owns. */
export function bodySchemaOf(schema: SchemaNode): SchemaNode {
  const body: Record<string, unknown> = { ...schema };
  if (isRecord(schema['properties']))
    body['properties'] = Object.fromEntries(
      Object.entries(schema['properties']).filter(([key]) => !typeMeta.has(key)),
    );
  if (Array.isArray(schema['required']))
    body['required'] = schema['required'].filter((name) => !typeMeta.has(String(name)));
  return body;
}

/**
 * OpenAPI validation of a custom resource against `bodySchemaOf(its schema)`, with upstream's paths and messages.
 * The root's metadata, apiVersion and kind are skipped (the caller validates ObjectMeta/TypeMeta).
 */
export function validateOpenAPI(object: Record<string, unknown>, bodySchema: SchemaNode): FieldError[] {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) if (!typeMeta.has(key)) body[key] = value;
  const errors = validateAgainstSchema(body, bodySchema).map(upstreamShape);
  checkExtras(body, bodySchema, '', errors);
  return errors;
}

/** True when `checkExtras` finds nothing under `schema` (the general check of a subtree the compiled checks leave out). */
function extrasHold(value: unknown, schema: SchemaNode): boolean {
  const errors: FieldError[] = [];
  checkExtras(value, schema, '', errors);
  return errors.length === 0;
}

/**
 * `validateOpenAPI` against one body schema, compiled once: a valid object (the common case) is recognised by
 * checks compiled per schema node, which build no paths or errors; any other object gets the general
 * validation, for its exact errors.
 */
export function compileOpenAPIValidation(bodySchema: SchemaNode): (object: Record<string, unknown>) => FieldError[] {
  const holds = compileValidityCheck(bodySchema, extrasHold);
  return (object) => {
    const body: Record<string, unknown> = {};
    for (const key in object) if (Object.hasOwn(object, key) && !typeMeta.has(key)) body[key] = object[key];
    return holds(body) ? [] : validateOpenAPI(object, bodySchema);
  };
}
