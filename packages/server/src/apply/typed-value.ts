import { sameJson } from '@kapi/apimachinery';
import {
  fieldElement,
  indexElement,
  keyElement,
  pathText,
  valueElement,
  type PathElement,
} from './field-path.js';
import { FieldSet } from './field-set.js';
import { isRecord, type JsonRecord } from '../json-value.js';
import { fieldSchema, schemaDefault, schemaType, type SchemaNode, type SchemaType } from './schema-type.js';


/** A value that does not fit its schema (structured-merge-diff ValidationError): `<path>: <message>`. */
export class TypedValueError extends Error {
  constructor(path: readonly PathElement[], detail: string) {
    super(`${pathText(path)}: ${detail}`);
  }
}

/** How a value is walked: granular maps and set/map lists have children; everything else is a leaf. */
export type Shape = 'leaf' | 'map' | 'set' | 'list-map';

/** The shape of `value` under `type` (a value of another JSON type than its schema is a leaf). */
export function shapeOf(value: unknown, type: SchemaType): Shape {
  if (type.kind === 'map') return !type.atomic && isRecord(value) ? 'map' : 'leaf';
  if (type.kind === 'deduced') return isRecord(value) ? 'map' : 'leaf';
  if (type.kind === 'list' && Array.isArray(value)) {
    if (type.type === 'set') return 'set';
    if (type.type === 'map') return 'list-map';
  }
  return 'leaf';
}

/** The schema of map key `name` under `type`, failing on keys the schema does not declare. */
export function childSchemaOf(type: SchemaType, name: string, path: readonly PathElement[]): SchemaNode | undefined {
  const schema = fieldSchema(type, name);
  if (schema === false) throw new TypedValueError([...path, fieldElement(name)], 'field not declared in schema');
  return schema;
}

/** The path element of one item of a set or list-map (missing keys take their schema default). */
export function itemElement(
  item: unknown,
  type: Extract<SchemaType, { kind: 'list' }>,
  index: number,
  path: readonly PathElement[],
): PathElement {
  if (type.type === 'set') return valueElement(item);
  if (type.keys.length === 0) return indexElement(index);
  if (!isRecord(item)) throw new TypedValueError(path, `expected a map for an associative list item, got ${JSON.stringify(item)}`);
  const itemType = schemaType(type.items);
  const fields: Array<[string, unknown]> = [];
  for (const key of type.keys) {
    let value = item[key];
    if (value === undefined) {
      const fallback = itemType.kind === 'map' ? schemaDefault(itemType.fields.get(key)) : undefined;
      if (fallback === undefined) {
        throw new TypedValueError(
          path,
          `associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`,
        );
      }
      value = fallback;
    }
    fields.push([key, value]);
  }
  return keyElement(fields);
}

/** The items of a set or list-map by element; duplicates fail unless `allowDuplicates` (first wins). */
export function indexItems(
  items: readonly unknown[],
  type: Extract<SchemaType, { kind: 'list' }>,
  path: readonly PathElement[],
  allowDuplicates: boolean,
): Array<[PathElement, unknown]> {
  const seen = new Set<PathElement>();
  const result: Array<[PathElement, unknown]> = [];
  items.forEach((item, index) => {
    const element = itemElement(item, type, index, path);
    if (seen.has(element)) {
      if (allowDuplicates) return;
      throw new TypedValueError(path, `duplicate entries for key ${pathText([element])}`);
    }
    seen.add(element);
    result.push([element, item]);
  });
  return result;
}

/**
 * The fields `value` sets (structured-merge-diff `ToFieldSet`): leaves, list items, map keys (not
 * struct fields) and empty or null values. Fails on undeclared fields and duplicate list keys.
 */
export function toFieldSet(value: unknown, schema: SchemaNode | undefined): FieldSet {
  const set = FieldSet.empty();
  const walk = (current: unknown, type: SchemaType, path: PathElement[]) => {
    const shape = shapeOf(current, type);
    if (shape === 'leaf') {
      set.insert(path);
      return;
    }
    if (shape === 'map') {
      for (const [name, child] of Object.entries(current as JsonRecord)) {
        const childSchema = childSchemaOf(type, name, path);
        const childPath = [...path, fieldElement(name)];
        walk(child, schemaType(childSchema), childPath);
        const declared = type.kind === 'map' && type.fields.has(name);
        if (child === null || (isRecord(child) && Object.keys(child).length === 0) || !declared)
          set.insert(childPath);
      }
      return;
    }
    const listType = type as Extract<SchemaType, { kind: 'list' }>;
    const itemType = schemaType(listType.items);
    for (const [element, item] of indexItems(current as unknown[], listType, path, false)) {
      const itemPath = [...path, element];
      if (shape === 'list-map') walk(item, itemType, itemPath);
      set.insert(itemPath);
    }
  };
  walk(value, schemaType(schema), []);
  return set;
}

/** What changed between two values, as structured-merge-diff's Comparison. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * Compares `live` with `next` (structured-merge-diff `Compare`): changed leaves are Modified; a map key
 * or list item present on one side only is Added/Removed together with everything below it.
 */
export function compare(live: unknown, next: unknown, schema: SchemaNode | undefined): Comparison {
  const added = FieldSet.empty();
  const modified = FieldSet.empty();
  const removed = FieldSet.empty();
  // One path array is pushed and popped along the walk (FieldSet.insert copies what it keeps).
  const markAll = (target: FieldSet, value: unknown, type: SchemaType, path: PathElement[]) => {
    target.insert(path);
    const shape = shapeOf(value, type);
    if (shape === 'map') {
      const record = value as JsonRecord;
      for (const name of Object.keys(record)) {
        const childSchema = fieldSchema(type, name);
        path.push(fieldElement(name));
        markAll(target, record[name], schemaType(childSchema === false ? undefined : childSchema), path);
        path.pop();
      }
    } else if (shape === 'set' || shape === 'list-map') {
      const listType = type as Extract<SchemaType, { kind: 'list' }>;
      const itemType = schemaType(listType.items);
      for (const [element, item] of indexItems(value as unknown[], listType, path, true)) {
        path.push(element);
        markAll(target, item, itemType, path);
        path.pop();
      }
    }
  };
  const walk = (left: unknown, right: unknown, type: SchemaType, path: PathElement[]) => {
    if (left === undefined && right === undefined) return;
    if (left === undefined) return markAll(added, right, type, path);
    if (right === undefined) return markAll(removed, left, type, path);
    const shape = shapeOf(left, type);
    if (shape === 'leaf' || shape !== shapeOf(right, type)) {
      if (!sameJson(left, right)) modified.insert(path);
      return;
    }
    if (shape === 'map') {
      const leftRecord = left as JsonRecord;
      const rightRecord = right as JsonRecord;
      const visit = (name: string) => {
        const childSchema = fieldSchema(type, name);
        path.push(fieldElement(name));
        walk(leftRecord[name], rightRecord[name], schemaType(childSchema === false ? undefined : childSchema), path);
        path.pop();
      };
      for (const name of Object.keys(leftRecord)) visit(name);
      for (const name of Object.keys(rightRecord)) if (!(name in leftRecord)) visit(name);
      return;
    }
    const listType = type as Extract<SchemaType, { kind: 'list' }>;
    const itemType = schemaType(listType.items);
    const leftItems = new Map(indexItems(left as unknown[], listType, path, true));
    const rightItems = new Map(indexItems(right as unknown[], listType, path, true));
    for (const [element, item] of leftItems) {
      path.push(element);
      walk(item, rightItems.get(element), itemType, path);
      path.pop();
    }
    for (const [element, item] of rightItems) {
      if (leftItems.has(element)) continue;
      path.push(element);
      walk(undefined, item, itemType, path);
      path.pop();
    }
  };
  walk(live, next, schemaType(schema), []);
  return { added, modified, removed };
}
