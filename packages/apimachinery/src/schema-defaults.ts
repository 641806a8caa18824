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
 */
export function applySchemaDefaults(value: unknown, schema: JsonSchema): void {
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    if (items) for (const item of value) applySchemaDefaults(item, items);
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
    const childSchema = properties.get(key) ?? mapValueSchema(schema, key);
    if (childSchema) applySchemaDefaults(value[key], childSchema);
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
