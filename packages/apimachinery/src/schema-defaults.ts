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
  for (const [name, property] of properties) {
    const current = value[name];
    const missing = current === undefined || (current === null && !isNullable(property));
    if (missing && property['default'] !== undefined) value[name] = structuredClone(property['default']);
  }
  for (const [key, child] of Object.entries(value)) {
    const childSchema = properties.get(key) ?? mapValueSchema(schema, key);
    if (childSchema) applySchemaDefaults(child, childSchema);
  }
}
