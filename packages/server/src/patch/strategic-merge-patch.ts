import { StatusError } from '@kapi/apimachinery';
import { isRecord, type JsonRecord } from '../json-value.js';

/** A JSON-schema node (TypeBox schemas are plain JSON schema objects). */
export type SchemaNode = Readonly<Record<string, unknown>>;


const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

/** How one list is merged, from `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`. */
interface ListStrategy {
  merge: boolean;
  mergeKey?: string;
}

/** Lists every object merges the same way whatever its schema says (metav1.ObjectMeta, conditions). */
const builtInStrategies: Record<string, ListStrategy> = {
  'metadata.ownerReferences': { merge: true, mergeKey: 'uid' },
  'metadata.finalizers': { merge: true },
  'status.conditions': { merge: true, mergeKey: 'type' },
};

/** A patch that does not follow the strategic merge format: upstream's text, answered as the client's error (400). */
function patchError(message: string): StatusError {
  return StatusError.badRequest(message);
}

function childSchema(schema: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (!schema) return undefined;
  const properties = schema['properties'];
  if (isRecord(properties) && isRecord(properties[key])) return properties[key];
  const additional = schema['additionalProperties'];
  return isRecord(additional) ? additional : undefined;
}

function itemSchema(schema: SchemaNode | undefined): SchemaNode | undefined {
  const items = schema?.['items'];
  return isRecord(items) ? items : undefined;
}

function listStrategy(schema: SchemaNode | undefined, path: string): ListStrategy {
  const strategy = schema?.['x-kubernetes-patch-strategy'];
  const mergeKey = schema?.['x-kubernetes-patch-merge-key'];
  if (typeof strategy === 'string' && strategy.split(',').includes('merge')) {
    return typeof mergeKey === 'string' ? { merge: true, mergeKey } : { merge: true };
  }
  return builtInStrategies[path] ?? { merge: false };
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Removes `$` directives from a value that is inserted whole (no live counterpart). */
function stripDirectives(value: unknown, schema: SchemaNode | undefined, path: string): unknown {
  if (Array.isArray(value)) return mergeList([], value, schema, path);
  if (isRecord(value)) return mergeMap({}, value, schema, path);
  return value;
}

function mergeMap(
  original: JsonRecord,
  patch: JsonRecord,
  schema: SchemaNode | undefined,
  path: string,
): JsonRecord {
  const directive = patch[DIRECTIVE];
  if (directive !== undefined) {
    if (directive === 'delete') return {};
    if (directive === 'replace') {
      const rest = { ...patch };
      delete rest[DIRECTIVE];
      return mergeMap({}, rest, schema, path);
    }
    if (directive !== 'merge')
      throw patchError(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);
  }
  let result: JsonRecord = { ...original };
  const retainKeys = patch[RETAIN_KEYS];
  if (retainKeys !== undefined) {
    if (!Array.isArray(retainKeys)) throw StatusError.badRequest('invalid patch format of retainKeys');
    const keep = new Set(retainKeys.map(String));
    for (const key of Object.keys(patch)) {
      if (!key.startsWith('$') && !keep.has(key))
        throw StatusError.badRequest('invalid patch format of retainKeys');
    }
    result = Object.fromEntries(Object.entries(result).filter(([key]) => keep.has(key)));
  }
  const deletions: Array<[string, unknown]> = [];
  const orders: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === DIRECTIVE || key === RETAIN_KEYS) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      deletions.push([key.slice(DELETE_FROM_PRIMITIVE_LIST.length), value]);
      continue;
    }
    if (key.startsWith(SET_ELEMENT_ORDER)) {
      orders.push([key.slice(SET_ELEMENT_ORDER.length), value]);
      continue;
    }
    const fieldPath = join(path, key);
    const fieldSchema = childSchema(schema, key);
    const current = result[key];
    if (value === null) delete result[key];
    else if (isRecord(value) && isRecord(current))
      result[key] = mergeMap(current, value, fieldSchema, fieldPath);
    else if (Array.isArray(value) && Array.isArray(current))
      result[key] = mergeList(current, value, fieldSchema, fieldPath);
    else result[key] = stripDirectives(value, fieldSchema, fieldPath);
  }
  for (const [field, values] of deletions) {
    if (!Array.isArray(values)) throw StatusError.badRequest('invalid patch format of primitive list');
    const current = result[field];
    if (Array.isArray(current))
      result[field] = current.filter((item) => !values.some((value) => value === item));
  }
  for (const [field, order] of orders) {
    if (!Array.isArray(order)) throw StatusError.badRequest('invalid patch format of setElementOrder list');
    const current = result[field];
    if (Array.isArray(current)) {
      const strategy = listStrategy(childSchema(schema, field), join(path, field));
      result[field] = applyElementOrder(current, order, strategy.mergeKey);
    }
  }
  return result;
}

function identity(item: unknown, mergeKey: string | undefined): string {
  return JSON.stringify(mergeKey !== undefined && isRecord(item) ? item[mergeKey] : item);
}

function applyElementOrder(items: unknown[], order: unknown[], mergeKey: string | undefined): unknown[] {
  const rank = new Map(order.map((entry, index) => [identity(entry, mergeKey), index]));
  const ordered = items.filter((item) => rank.has(identity(item, mergeKey)));
  ordered.sort(
    (left, right) => (rank.get(identity(left, mergeKey)) ?? 0) - (rank.get(identity(right, mergeKey)) ?? 0),
  );
  return [...ordered, ...items.filter((item) => !rank.has(identity(item, mergeKey)))];
}

function mergeList(
  original: unknown[],
  patch: unknown[],
  schema: SchemaNode | undefined,
  path: string,
): unknown[] {
  const strategy = listStrategy(schema, path);
  const items = itemSchema(schema);
  if (patch.some((item) => Array.isArray(item))) {
    throw StatusError.of(
      422,
      'Invalid',
      'the server rejected our request due to an error in our request',
      {},
    );
  }
  let base = original;
  const elements: unknown[] = [];
  for (const item of patch) {
    if (isRecord(item) && item[DIRECTIVE] !== undefined && Object.keys(item).length === 1) {
      const directive = item[DIRECTIVE];
      if (directive === 'replace') base = [];
      else if (directive === 'merge') throw patchError('merging lists cannot yet be specified in the patch');
      else throw patchError(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(item)}`);
      continue;
    }
    elements.push(item);
  }
  if (!strategy.merge) return elements.map((item) => stripDirectives(item, items, path));
  const { mergeKey } = strategy;
  if (mergeKey === undefined) {
    const result = [...base];
    for (const item of elements) if (!result.some((existing) => existing === item)) result.push(item);
    return result;
  }
  let result = [...base];
  for (const item of elements) {
    if (!isRecord(item))
      throw patchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    if (!(mergeKey in item)) {
      throw patchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    }
    const key = JSON.stringify(item[mergeKey]);
    if (item[DIRECTIVE] === 'delete') {
      result = result.filter((existing) => !isRecord(existing) || JSON.stringify(existing[mergeKey]) !== key);
      continue;
    }
    const index = result.findIndex(
      (existing) => isRecord(existing) && JSON.stringify(existing[mergeKey]) === key,
    );
    const existing = index >= 0 ? result[index] : undefined;
    if (isRecord(existing)) result[index] = mergeMap(existing, item, items, path);
    else result.push(mergeMap({}, item, items, path));
  }
  return result;
}

/**
 * Applies a strategic merge patch (k8s.io/apimachinery strategicpatch, apply side). Lists merge by the
 * `x-kubernetes-patch-merge-key` of their schema when `x-kubernetes-patch-strategy` contains `merge`;
 * `metadata.ownerReferences` (uid), `metadata.finalizers` (set) and `status.conditions` (type) always do.
 * Supports `$patch: replace|delete`, `$retainKeys`, `$deleteFromPrimitiveList/<f>` and `$setElementOrder/<f>`.
 */
export function applyStrategicMergePatch(document: unknown, patch: unknown, schema?: SchemaNode): unknown {
  if (!isRecord(patch)) throw StatusError.badRequest('invalid JSON document');
  const original = isRecord(document) ? (structuredClone(document) as JsonRecord) : {};
  return mergeMap(original, structuredClone(patch) as JsonRecord, schema, '');
}
