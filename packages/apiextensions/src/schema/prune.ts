import { isRecord, type SchemaNode } from './schema-node.js';
import { schemaFacts } from './schema-facts.js';
import { pruneObjectMeta } from './object-meta-fields.js';

const typeMetaFields = new Set(['apiVersion', 'kind', 'metadata']);

/** Collects the paths of undeclared fields under `value`; deletes them when `remove`. */
function pruneValue(value: unknown, schema: SchemaNode, path: string, pruned: string[], remove: boolean): void {
  if (Array.isArray(value)) {
    const items = schemaFacts(schema).items;
    if (items !== undefined)
      for (let index = 0; index < value.length; index++)
        pruneValue(value[index], items, `${path}[${index}]`, pruned, remove);
    return;
  }
  if (isRecord(value)) pruneObject(value, schema, path, pruned, remove, schemaFacts(schema).isEmbeddedResource);
}

function pruneObject(
  object: Record<string, unknown>,
  schema: SchemaNode,
  path: string,
  pruned: string[],
  remove: boolean,
  isResource: boolean,
): void {
  const facts = schemaFacts(schema);
  for (const key of Object.keys(object)) {
    const keyPath = path === '' ? key : `${path}.${key}`;
    if (isResource && typeMetaFields.has(key)) {
      const metadata = object[key];
      if (key === 'metadata' && isRecord(metadata)) pruneObjectMeta(metadata, keyPath, pruned, remove);
      continue;
    }
    const declared = facts.properties.get(key) ?? facts.additionalProperties;
    if (declared !== undefined) pruneValue(object[key], declared, keyPath, pruned, remove);
    else if (!facts.preservesUnknownFields) {
      if (remove) delete object[key];
      pruned.push(keyPath);
    }
  }
}

/**
 * Deletes the fields a structural schema does not declare, as upstream's pruning does: subtrees under
 * `x-kubernetes-preserve-unknown-fields` keep unknown keys (declared children are still pruned), the root and
 * embedded resources keep apiVersion, kind and metadata, whose fields are those of ObjectMeta. Returns the
 * pruned paths (`spec.foo`, `a[0].b`, `metadata.foo`).
 */
export function pruneObjectInPlace(object: Record<string, unknown>, schema: SchemaNode): string[] {
  const pruned: string[] = [];
  pruneObject(object, schema, '', pruned, true, true);
  return pruned;
}

/** The paths `pruneObjectInPlace` would prune, leaving the object as it is. */
export function unknownFieldPaths(object: Record<string, unknown>, schema: SchemaNode): string[] {
  const unknown: string[] = [];
  pruneObject(object, schema, '', unknown, false, true);
  return unknown;
}

/** Prunes any value (a default, a nested object) against its schema node; returns the pruned paths. */
export function pruneValueInPlace(value: unknown, schema: SchemaNode): string[] {
  const pruned: string[] = [];
  pruneValue(value, schema, '', pruned, true);
  return pruned;
}
