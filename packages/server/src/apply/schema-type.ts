import { isRecord } from '../json-value.js';
import type { SchemaNode } from '../patch/strategic-merge-patch.js';

export type { SchemaNode };

/** How server-side apply treats a value, derived from its schema (kube-openapi schemaconv rules). */
export type SchemaType =
  | { kind: 'scalar' }
  | {
      kind: 'map';
      atomic: boolean;
      /** Declared fields (struct properties). */
      fields: ReadonlyMap<string, SchemaNode>;
      /** Schema of keys that are not declared fields; `undefined` = deduced; `false` = none allowed. */
      elements: SchemaNode | undefined | false;
    }
  | {
      kind: 'list';
      type: 'atomic' | 'set' | 'map';
      keys: readonly string[];
      items: SchemaNode | undefined;
    }
  /** No schema: maps are granular, lists atomic, scalars leaves (deduced). */
  | { kind: 'deduced' };

const cache = new WeakMap<SchemaNode, SchemaType>();
const deduced: SchemaType = { kind: 'deduced' };
const scalar: SchemaType = { kind: 'scalar' };

/** Picks the structural branch of `anyOf`/`oneOf`/`allOf` schemas (e.g. nullable unions). */
function structural(schema: SchemaNode): SchemaNode {
  for (const combinator of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[combinator];
    if (!Array.isArray(branches)) continue;
    const branch = branches.find(
      (item) => isRecord(item) && (item['type'] === 'object' || item['type'] === 'array' || 'properties' in item),
    );
    if (isRecord(branch)) return { ...schema, ...branch };
  }
  return schema;
}

function listType(schema: SchemaNode): { type: 'atomic' | 'set' | 'map'; keys: string[] } {
  const declared = schema['x-kubernetes-list-type'];
  const keys = schema['x-kubernetes-list-map-keys'];
  if (declared === 'map') return { type: 'map', keys: Array.isArray(keys) ? keys.map(String) : [] };
  if (declared === 'set' || declared === 'atomic') return { type: declared, keys: [] };
  const strategy = schema['x-kubernetes-patch-strategy'];
  const strategies = typeof strategy === 'string' ? strategy.split(',') : [];
  if (strategies.includes('retainKeys') && !strategies.includes('merge')) return { type: 'atomic', keys: [] };
  if (strategies.includes('merge')) {
    const mergeKey = schema['x-kubernetes-patch-merge-key'];
    return typeof mergeKey === 'string' ? { type: 'map', keys: [mergeKey] } : { type: 'set', keys: [] };
  }
  return { type: 'atomic', keys: [] };
}

function classify(input: SchemaNode): SchemaType {
  const schema = structural(input);
  if (schema['x-kubernetes-int-or-string'] === true) return scalar;
  const type = schema['type'];
  if (type === 'array' || (type === undefined && isRecord(schema['items']))) {
    const items = schema['items'];
    return { kind: 'list', ...listType(schema), items: isRecord(items) ? items : undefined };
  }
  const properties = schema['properties'];
  const additional = schema['additionalProperties'];
  const isObject = type === 'object' || isRecord(properties) || additional !== undefined;
  if (!isObject) return type === undefined ? deduced : scalar;
  const fields = new Map<string, SchemaNode>();
  if (isRecord(properties)) {
    for (const [name, value] of Object.entries(properties)) if (isRecord(value)) fields.set(name, value);
  }
  if (schema['x-kubernetes-embedded-resource'] === true) {
    for (const name of ['apiVersion', 'kind']) if (!fields.has(name)) fields.set(name, { type: 'string' });
    if (!fields.has('metadata')) fields.set('metadata', { type: 'object', additionalProperties: true });
  }
  let elements: SchemaNode | undefined | false;
  if (isRecord(additional)) elements = additional;
  else if (additional === true || schema['x-kubernetes-preserve-unknown-fields'] === true) elements = undefined;
  else if (isRecord(properties) || additional === false) elements = false;
  else elements = undefined;
  return { kind: 'map', atomic: schema['x-kubernetes-map-type'] === 'atomic', fields, elements };
}

/** The apply semantics of a schema node (cached per node); `undefined` means no schema (deduced). */
export function schemaType(schema: SchemaNode | undefined): SchemaType {
  if (!schema) return deduced;
  let result = cache.get(schema);
  if (!result) {
    result = classify(schema);
    cache.set(schema, result);
  }
  return result;
}

/** The schema of field `name` of a map type; `false` when the key is not allowed. */
export function fieldSchema(type: SchemaType, name: string): SchemaNode | undefined | false {
  if (type.kind !== 'map') return undefined;
  return type.fields.get(name) ?? type.elements;
}

/** The default of a schema node, if it declares one. */
export function schemaDefault(schema: SchemaNode | undefined): unknown {
  return schema?.['default'];
}
