import { objectMetaSchema } from './kind-schema.js';
import { childPath, indexPath, isJsonObject, keyPath, mapValueSchema, type JsonSchema } from './json-schema.js';
import { schemaFacts } from './schema-facts.js';

const metaSchema = objectMetaSchema as unknown as JsonSchema;
const typeMetaFields = new Set(['apiVersion', 'kind']);

/** Options of {@link findUnknownSchemaFields}. */
export interface UnknownFieldOptions {
  /** Delete the unknown fields from the value (pruning). */
  remove?: boolean;
  /** The value is a whole Kubernetes object: apiVersion/kind are known and metadata is ObjectMeta. */
  isRoot?: boolean;
}

/**
 * Returns the paths (`spec.foo`, `spec.containers[0].bar`, `spec.map[key].x`) of object fields the schema
 * does not declare. Maps (`additionalProperties`/`patternProperties` schemas), opaque schemas (`{}`),
 * `additionalProperties: true` and `x-kubernetes-preserve-unknown-fields` keep their unknown content.
 */
export function findUnknownSchemaFields(
  value: unknown,
  schema: JsonSchema,
  options: UnknownFieldOptions = {},
): string[] {
  const found: string[] = [];
  walk(value, schema, '', found, options.remove === true, options.isRoot === true);
  return found;
}

function walk(
  value: unknown,
  schema: JsonSchema,
  path: string,
  found: string[],
  remove: boolean,
  isResource: boolean,
): void {
  const facts = schemaFacts(schema);
  if (Array.isArray(value)) {
    const items = facts.items;
    if (items)
      value.forEach((item, index) => walk(item, items, indexPath(path, index), found, remove, false));
    return;
  }
  if (!isJsonObject(value)) return;
  if (facts.opaque && !isResource) return;
  const embedded = isResource || facts.embedded;
  const properties = facts.properties;
  // Keys, not for-in: a key deleted below (pruning) is not visited again.
  for (const key of Object.keys(value)) {
    const child = value[key];
    const property = properties.get(key);
    if (embedded && key === 'metadata') {
      const declared = property && schemaFacts(property).properties.size > 0 ? property : metaSchema;
      walk(child, declared, childPath(path, key), found, remove, false);
      continue;
    }
    if (property) {
      walk(child, property, childPath(path, key), found, remove, schemaFacts(property).embedded);
      continue;
    }
    if (embedded && typeMetaFields.has(key)) continue;
    const mapSchema = facts.mapValues ? mapValueSchema(schema, key) : undefined;
    if (mapSchema) {
      walk(child, mapSchema, keyPath(path, key), found, remove, schemaFacts(mapSchema).embedded);
      continue;
    }
    if (facts.preservesUnknown) continue;
    found.push(childPath(path, key));
    if (remove) delete value[key];
  }
}
