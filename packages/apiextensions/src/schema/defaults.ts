import { childSchema, isRecord, itemSchema, propertySchemas, type SchemaNode } from './schema-node.js';

function isNullable(schema: SchemaNode): boolean {
  return schema['nullable'] === true;
}

/**
 * Applies `default`s in place as upstream's structural defaulting does, after pruning: a missing property gets
 * its default, and a `null` where the schema is not nullable gets the default or, without one, is dropped
 * (array items keep their nulls unless defaulted). Defaults are copied, and then defaulted themselves.
 */
export function applyDefaultsInPlace(value: unknown, schema: SchemaNode | undefined): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    if (items === undefined) return;
    value.forEach((item, index) => {
      if (item === null && !isNullable(items) && items['default'] !== undefined)
        value[index] = structuredClone(items['default']);
      applyDefaultsInPlace(value[index], items);
    });
    return;
  }
  if (!isRecord(value)) return;
  for (const [name, property] of propertySchemas(schema)) {
    if (value[name] === undefined && property['default'] !== undefined)
      value[name] = structuredClone(property['default']);
  }
  for (const key of Object.keys(value)) {
    const child = childSchema(schema, key);
    if (child === undefined) continue;
    if (value[key] === null && !isNullable(child)) {
      if (child['default'] !== undefined) value[key] = structuredClone(child['default']);
      else delete value[key];
    }
    applyDefaultsInPlace(value[key], child);
  }
}
