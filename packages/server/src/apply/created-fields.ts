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
 * structured-merge-diff's Compare marks an added subtree) less the never-owned ones, written straight
 * from the object instead of built as field sets, diffed and serialized. `undefined` when it owns
 * nothing. Throws {@link TypedValueError} where the general path does (e.g. a list-map item without
 * its key), so the caller handles both alike.
 */
export function createdFieldsV1(value: JsonRecord, schema: SchemaNode | undefined): FieldsV1 | undefined {
  const text = childrenText(value, schemaType(schema), [], topNeverOwned);
  return text === '' ? undefined : (JSON.parse(`{${text}}`) as FieldsV1);
}

/**
 * The fieldsV1 text (without braces) of the children of `value`, in sibling order; `neverOwned` names
 * the map keys that are not members themselves (their children still are).
 */
function childrenText(value: unknown, type: SchemaType, path: PathElement[], neverOwned?: ReadonlySet<string>): string {
  const shape = shapeOf(value, type);
  if (shape === 'leaf') return '';
  let text = '';
  if (shape === 'map') {
    const record = value as JsonRecord;
    for (const name of sortedKeys(record)) {
      const childSchema = fieldSchema(type, name);
      path.push(fieldElement(name));
      const below = childrenText(
        record[name],
        schemaType(childSchema === false ? undefined : childSchema),
        path,
        neverOwned === topNeverOwned && name === 'metadata' ? metadataNeverOwned : undefined,
      );
      path.pop();
      const node = nodeText(!neverOwned?.has(name), below);
      // `"f:<name>"`: the name's JSON string with the element's prefix inside the quotes.
      if (node !== undefined) text += `${text === '' ? '' : ','}"f:${JSON.stringify(name).slice(1)}:${node}`;
    }
    return text;
  }
  const listType = type as Extract<SchemaType, { kind: 'list' }>;
  const itemType = schemaType(listType.items);
  const items: Array<[PathElement, string]> = [];
  for (const [element, item] of indexItems(value as unknown[], listType, path, true)) {
    path.push(element);
    items.push([element, nodeText(true, childrenText(item, itemType, path)) as string]);
    path.pop();
  }
  items.sort(([left], [right]) => compareElements(left, right));
  for (const [element, node] of items) text += `${text === '' ? '' : ','}${JSON.stringify(element)}:${node}`;
  return text;
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

/** One node's fieldsV1 value: `{}` for a member leaf, `"."` first for a member with children. */
function nodeText(member: boolean, below: string): string | undefined {
  if (below === '') return member ? '{}' : undefined;
  return member ? `{".":{},${below}}` : `{${below}}`;
}
