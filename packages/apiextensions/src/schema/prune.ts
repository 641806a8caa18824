import { childSchema, isRecord, itemSchema, propertySchemas, type SchemaNode } from './schema-node.js';

const typeMetaFields = new Set(['apiVersion', 'kind', 'metadata']);

function pruneValue(value: unknown, schema: SchemaNode | undefined, path: string, pruned: string[]): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    value.forEach((item, index) => pruneValue(item, items, `${path}[${index}]`, pruned));
    return;
  }
  if (isRecord(value))
    pruneObject(value, schema, path, pruned, schema['x-kubernetes-embedded-resource'] === true);
}

function pruneObject(
  object: Record<string, unknown>,
  schema: SchemaNode,
  path: string,
  pruned: string[],
  isResource: boolean,
): void {
  const properties = propertySchemas(schema);
  const preserve =
    schema['x-kubernetes-preserve-unknown-fields'] === true || schema['additionalProperties'] === true;
  for (const key of Object.keys(object)) {
    if (isResource && typeMetaFields.has(key)) continue;
    const keyPath = path === '' ? key : `${path}.${key}`;
    const declared = properties.get(key) ?? childSchema(schema, key);
    if (declared !== undefined) pruneValue(object[key], declared, keyPath, pruned);
    else if (!preserve) {
      delete object[key];
      pruned.push(keyPath);
    }
  }
}

/**
 * Deletes the fields a structural schema does not declare, as upstream's pruning does: subtrees under
 * `x-kubernetes-preserve-unknown-fields` keep unknown keys (declared children are still pruned), the root and
 * embedded resources keep apiVersion, kind and metadata. Returns the pruned paths (`spec.foo`, `a[0].b`).
 */
export function pruneObjectInPlace(object: Record<string, unknown>, schema: SchemaNode): string[] {
  const pruned: string[] = [];
  pruneObject(object, schema, '', pruned, true);
  return pruned;
}

/** Prunes any value (a default, a nested object) against its schema node; returns the pruned paths. */
export function pruneValueInPlace(value: unknown, schema: SchemaNode): string[] {
  const pruned: string[] = [];
  pruneValue(value, schema, '', pruned);
  return pruned;
}
