import { isJsonObject, isNullable, mapValueSchema, type JsonSchema } from './json-schema.js';
import { schemaFacts } from './schema-facts.js';

/**
 * Fills schema `default`s into `value` in place, recursively, only where the parent exists (structural
 * defaulting): a missing property, or a `null` one whose schema is not nullable, gets a copy of its default.
 * Other `null`s where the schema is not nullable become what Go decodes them to: a property is dropped
 * (it decodes to its zero value, which is omitted), and a map value or list item gets the zero value of
 * its type (`""`, `0`, `false`, `{}`, `[]`), so `labels: {a: null}` is the label `a: ""`.
 */
export function applySchemaDefaults(value: unknown, schema: JsonSchema): void {
  const facts = schemaFacts(schema);
  if (Array.isArray(value)) {
    const items = facts.items;
    if (!items) return;
    for (let index = 0; index < value.length; index += 1) {
      if (value[index] === null && !isNullable(items)) value[index] = zeroValue(items) ?? null;
      applySchemaDefaults(value[index], items);
    }
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = facts.properties;
  for (const [name, property] of facts.defaulted) {
    const current = value[name];
    const missing = current === undefined || (current === null && !isNullable(property));
    if (missing && property['default'] !== undefined) value[name] = structuredClone(property['default']);
  }
  // Keys, not entries: no [key, value] pair per field of every object defaulted (and a key deleted
  // below is not visited again, as it could be with for-in).
  for (const key of Object.keys(value)) {
    const property = properties.get(key);
    const childSchema = property ?? (facts.mapValues ? mapValueSchema(schema, key) : undefined);
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
