import { isRecord, type SchemaNode } from './schema-node.js';
import { hasOnlyObjectMetaFields } from './object-meta-fields.js';
import { schemaFacts, type SchemaFacts } from './schema-facts.js';

const typeMetaFields = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Whether `value` has nothing for pruning or defaulting to do: what `pruneObjectInPlace` (when `prune`) and
 * `applyDefaultsInPlace` (when `defaults`) would change makes it false. One walk, no paths built, stopping at
 * the first change.
 */
function isNormalizedValue(value: unknown, facts: SchemaFacts, prune: boolean, isResource: boolean, defaults: boolean): boolean {
  if (!prune && !defaults) return true;
  if (Array.isArray(value)) {
    const items = facts.items;
    if (items === undefined) return true;
    const itemFacts = schemaFacts(items);
    const defaulted = defaults && items['default'] !== undefined && !itemFacts.nullable;
    for (const item of value) {
      if (item === null && defaulted) return false;
      if (!isNormalizedValue(item, itemFacts, prune, itemFacts.isEmbeddedResource, defaults)) return false;
    }
    return true;
  }
  if (!isRecord(value)) return true;
  if (defaults) for (const [name] of facts.defaults) if (value[name] === undefined) return false;
  // for-in, not Object.keys: no array of keys per object (JSON objects have no inherited enumerable keys).
  for (const key in value) {
    const child = facts.properties.get(key) ?? facts.additionalProperties;
    // The root and embedded resources keep their TypeMeta and metadata (defaults still apply there), and
    // their metadata keeps the fields of ObjectMeta.
    const typeMeta = isResource && typeMetaFields.has(key);
    const pruned = prune && !typeMeta;
    if (prune && typeMeta && key === 'metadata' && isRecord(value[key]) && !hasOnlyObjectMetaFields(value[key])) return false;
    if (child === undefined) {
      if (pruned && !facts.preservesUnknownFields) return false;
      continue;
    }
    const field = value[key];
    // A string, number or boolean has nothing to prune or default.
    if (typeof field !== 'object') continue;
    const childFacts = schemaFacts(child);
    if (defaults && field === null && !childFacts.nullable) return false;
    if (!isNormalizedValue(field, childFacts, pruned, childFacts.isEmbeddedResource, defaults)) return false;
  }
  return true;
}

/**
 * True when pruning and then defaulting `object` (a custom resource at the schema's version) would leave it
 * unchanged, e.g. an object this server pruned and defaulted before writing it.
 */
export function isPrunedAndDefaulted(object: Record<string, unknown>, schema: SchemaNode): boolean {
  return isNormalizedValue(object, schemaFacts(schema), true, true, true);
}

/** True when pruning `object` would leave it unchanged (it has no undeclared field). */
export function hasOnlyDeclaredFields(object: Record<string, unknown>, schema: SchemaNode): boolean {
  return isNormalizedValue(object, schemaFacts(schema), true, true, false);
}
