import {
  isJsonObject,
  isNullable,
  itemsOf,
  mapValueSchema,
  propertiesOf,
  type JsonSchema,
} from './json-schema.js';

/**
 * Fills schema `default`s into `value` in place, recursively, only where the parent exists (structural
 * defaulting): a missing property, or a `null` one whose schema is not nullable, gets a copy of its default.
 * Other `null`s where the schema is not nullable become what Go decodes them to: a property is dropped
 * (it decodes to its zero value, which is omitted), and a map value or list item gets the zero value of
 * its type (`""`, `0`, `false`, `{}`, `[]`), so `labels: {a: null}` is the label `a: ""`.
 */
export function applySchemaDefaults(value: unknown, schema: JsonSchema): void {
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    if (!items) return;
    for (let index = 0; index < value.length; index += 1) {
      if (value[index] === null && !isNullable(items)) value[index] = zeroValue(items) ?? null;
      applySchemaDefaults(value[index], items);
    }
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = propertiesOf(schema);
  for (const [name, property] of defaultedPropertiesOf(schema, properties)) {
    const current = value[name];
    const missing = current === undefined || (current === null && !isNullable(property));
    if (missing && property['default'] !== undefined) value[name] = structuredClone(property['default']);
  }
  // Keys, not entries: no [key, value] pair per field of every object defaulted.
  for (const key of Object.keys(value)) {
    const property = properties.get(key);
    const childSchema = property ?? mapValueSchema(schema, key);
    if (!childSchema) continue;
    if (value[key] === null && !isNullable(childSchema)) {
      if (property) {
        delete value[key];
        continue;
      }
      value[key] = zeroValue(childSchema) ?? null;
    }
    applySchemaDefaults(value[key], childSchema);
  }
}

/** The JSON of Go's zero value of a schema's single declared type; undefined for any other schema. */
function zeroValue(schema: JsonSchema): unknown {
  switch (schema['type']) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return {};
    case 'array':
      return [];
    default:
      return undefined;
  }
}

const defaultedProperties = new WeakMap<JsonSchema, ReadonlyArray<readonly [string, JsonSchema]>>();

/**
 * The properties of `schema` that have a `default` (cached, as {@link propertiesOf} is): most have none,
 * and a defaulting pass then looks at none of them instead of at every property of every object.
 */
function defaultedPropertiesOf(schema: JsonSchema, properties: Map<string, JsonSchema>): ReadonlyArray<readonly [string, JsonSchema]> {
  let out = defaultedProperties.get(schema);
  if (out === undefined) {
    out = [...properties].filter(([, property]) => property['default'] !== undefined);
    defaultedProperties.set(schema, out);
  }
  return out;
}
