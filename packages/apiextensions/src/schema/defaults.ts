import { isRecord, type SchemaNode } from './schema-node.js';
import { schemaFacts } from './schema-facts.js';

/** A default for one object: objects and arrays are copied, scalars need not be. */
function copyOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/**
 * Applies `default`s in place as upstream's structural defaulting does, after pruning: a missing property gets
 * its default, and a `null` where the schema is not nullable gets the default or, without one, is dropped
 * (array items keep their nulls unless defaulted). Defaults are copied, and then defaulted themselves.
 */
export function applyDefaultsInPlace(value: unknown, schema: SchemaNode | undefined): void {
  if (schema === undefined) return;
  const facts = schemaFacts(schema);
  if (Array.isArray(value)) {
    const items = facts.items;
    if (items === undefined) return;
    const itemFacts = schemaFacts(items);
    for (let index = 0; index < value.length; index++) {
      if (value[index] === null && !itemFacts.nullable && items['default'] !== undefined)
        value[index] = copyOf(items['default']);
      applyDefaultsInPlace(value[index], items);
    }
    return;
  }
  if (!isRecord(value)) return;
  for (const [name, fallback] of facts.defaults)
    if (value[name] === undefined) value[name] = copyOf(fallback);
  // for-in, not Object.keys: no array of keys per object (a deleted key not yet reached is skipped, as with the
  // array: a key is only ever deleted as it is reached).
  for (const key in value) {
    const child = facts.properties.get(key) ?? facts.additionalProperties;
    if (child === undefined) continue;
    if (value[key] === null && !schemaFacts(child).nullable) {
      if (child['default'] !== undefined) value[key] = copyOf(child['default']);
      else delete value[key];
    }
    applyDefaultsInPlace(value[key], child);
  }
}
