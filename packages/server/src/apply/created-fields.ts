import { compareElements, compareStrings, fieldElement, type PathElement } from './field-path.js';
import type { FieldsV1 } from './fields-v1.js';
import { fieldSchema, schemaType, type SchemaNode, type SchemaType } from './schema-type.js';
import { indexItems, shapeOf } from './typed-value.js';
import type { JsonRecord } from '../json-value.js';

/** Top-level fields no manager owns (the field manager's stripmeta set, first level). */
const topNeverOwned = new Set(['apiVersion', 'kind', 'metadata']);

/** Fields of `metadata` no manager owns (the field manager's stripmeta set under metadata). */
export const metadataNeverOwnedFields: readonly string[] = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'selfLink',
  'clusterName',
  'managedFields',
];
const metadataNeverOwned: ReadonlySet<string> = new Set(metadataNeverOwnedFields);

/**
 * The fieldsV1 of the only entry a create records: every field of `value` (every node, as
 * structured-merge-diff's Compare marks an added subtree) less the never-owned ones, built straight
 * from the object instead of as field sets, diffed and serialized. `undefined` when it owns nothing.
 * Throws {@link TypedValueError} where the general path does (e.g. a list-map item without its key), so
 * the caller handles both alike.
 */
export function createdFieldsV1(value: JsonRecord, schema: SchemaNode | undefined): FieldsV1 | undefined {
  return childrenFields(value, schemaType(schema), [], false, topNeverOwned);
}

/**
 * The fieldsV1 node of `value` (at `path`), whose children are its members in sibling order, `"."` first
 * when `value` itself is a `member`; undefined when it is neither a member nor has members below.
 * `neverOwned` names the map keys that are not members themselves (their children still are).
 */
function childrenFields(
  value: unknown,
  type: SchemaType,
  path: PathElement[],
  member: boolean,
  neverOwned?: ReadonlySet<string>,
): FieldsV1 | undefined {
  const shape = shapeOf(value, type);
  if (shape === 'leaf') return member ? {} : undefined;
  let fields: FieldsV1 | undefined;
  if (shape === 'map') {
    const record = value as JsonRecord;
    for (const name of sortedKeys(record)) {
      const child = record[name];
      // A never-owned scalar (metadata.name, uid, creationTimestamp...) has nothing below it to own.
      if ((typeof child !== 'object' || child === null) && neverOwned?.has(name)) continue;
      const childSchema = fieldSchema(type, name);
      const element = fieldElement(name);
      path.push(element);
      const node = childrenFields(
        child,
        schemaType(childSchema === false ? undefined : childSchema),
        path,
        !neverOwned?.has(name),
        neverOwned === topNeverOwned && name === 'metadata' ? metadataNeverOwned : undefined,
      );
      path.pop();
      if (node !== undefined) (fields ??= member ? { '.': {} } : {})[element] = node;
    }
    return fields ?? (member ? {} : undefined);
  }
  const listType = type as Extract<SchemaType, { kind: 'list' }>;
  const itemType = schemaType(listType.items);
  const items: Array<[PathElement, FieldsV1]> = [];
  for (const [element, item] of indexItems(value as unknown[], listType, path, true)) {
    path.push(element);
    items.push([element, childrenFields(item, itemType, path, true) as FieldsV1]);
    path.pop();
  }
  items.sort(([left], [right]) => compareElements(left, right));
  for (const [element, node] of items) (fields ??= member ? { '.': {} } : {})[element] = node;
  return fields ?? (member ? {} : undefined);
}

/**
 * The keys of `record` in code-unit order (as `sort(compareStrings)`), sorted in place by insertion:
 * an object's few keys need no call into Array.prototype.sort, which allocates its work arrays per call.
 */
function sortedKeys(record: JsonRecord): string[] {
  const keys = Object.keys(record);
  if (keys.length > 16) return keys.sort(compareStrings);
  for (let index = 1; index < keys.length; index += 1) {
    const key = keys[index] as string;
    let at = index;
    for (; at > 0 && (keys[at - 1] as string) > key; at -= 1) keys[at] = keys[at - 1] as string;
    keys[at] = key;
  }
  return keys;
}
