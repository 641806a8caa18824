import { fieldElement, type PathElement } from './field-path.js';
import type { FieldSet } from './field-set.js';
import { fieldSchema, schemaType, type SchemaNode, type SchemaType } from './schema-type.js';
import { indexItems, shapeOf } from './typed-value.js';
import type { JsonRecord } from '../json-value.js';

type ListType = Extract<SchemaType, { kind: 'list' }>;

function childType(type: SchemaType, name: string): SchemaType {
  const schema = fieldSchema(type, name);
  return schemaType(schema === false ? undefined : schema);
}

/**
 * Merges the items of a set or list-map (structured-merge-diff `visitListItems`): live items keep their
 * places, items of both are merged where the config orders them relative to other shared items, and
 * config-only items follow the item before them in the config.
 */
function mergeItems(live: unknown[], config: unknown[], type: ListType, path: PathElement[]): unknown[] {
  const itemType = schemaType(type.items);
  const configItems = indexItems(config, type, path, false);
  const liveItems = indexItems(live, type, path, true);
  const observedLive = new Map(liveItems);
  const observedConfig = new Map(configItems);
  const shared = configItems.filter(([element]) => observedLive.has(element)).map(([element]) => element);
  let sharedIndex = 0;
  let nextShared: PathElement | undefined = shared[sharedIndex];
  const advanceShared = () => {
    sharedIndex += 1;
    nextShared = shared[sharedIndex];
  };
  const merged = new Set<PathElement>();
  const out: unknown[] = [];
  const mergeItem = (element: PathElement, left: unknown, right: unknown) => {
    const result = right === undefined ? left : mergeValue(left, right, itemType, [...path, element]);
    if (result !== undefined) out.push(result);
  };
  let liveIndex = 0;
  let configIndex = 0;
  while (liveIndex < liveItems.length || configIndex < configItems.length) {
    const liveEntry = liveItems[liveIndex];
    const configEntry = configItems[configIndex];
    if (liveEntry && configEntry) {
      const [element] = liveEntry;
      if (element === configEntry[0]) {
        merged.add(element);
        mergeItem(element, observedLive.get(element), observedConfig.get(element));
        liveIndex += 1;
        configIndex += 1;
        if (nextShared !== undefined) advanceShared();
        continue;
      }
      if (observedConfig.has(element) && nextShared !== undefined && nextShared !== element) {
        liveIndex += 1;
        continue;
      }
    }
    if (liveEntry) {
      const [element, item] = liveEntry;
      if (!observedConfig.has(element)) {
        mergeItem(element, item, undefined);
        liveIndex += 1;
        continue;
      }
      if (merged.has(element)) {
        liveIndex += 1;
        continue;
      }
    }
    if (configEntry) {
      const [element, item] = configEntry;
      merged.add(element);
      mergeItem(element, observedLive.get(element), item);
      configIndex += 1;
      if (nextShared !== undefined && nextShared === element) advanceShared();
    }
  }
  return out;
}

function mergeValue(live: unknown, config: unknown, type: SchemaType, path: PathElement[]): unknown {
  if (live === undefined || config === undefined) return config ?? live;
  const shape = shapeOf(config, type);
  if (shape === 'leaf' || shape !== shapeOf(live, type)) return config;
  if (shape === 'map') {
    const result: JsonRecord = { ...(live as JsonRecord) };
    for (const [name, value] of Object.entries(config as JsonRecord)) {
      if (value === null) delete result[name];
      else result[name] = mergeValue(result[name], value, childType(type, name), [...path, fieldElement(name)]);
    }
    return result;
  }
  return mergeItems(live as unknown[], config as unknown[], type as ListType, path);
}

/**
 * Merges an apply configuration into the live object: atomic values are replaced, granular maps merged
 * per key, list-maps merged by key and sets unioned. A `null` in the config removes the field.
 * Neither input is modified; unchanged subtrees of `live` are shared.
 */
export function mergeApplied(live: unknown, config: unknown, schema: SchemaNode | undefined): unknown {
  return mergeValue(live, config, schemaType(schema), []);
}

/**
 * Removes from `value` the members of `remove` that have nothing of `keep` at or below them (the prune
 * step of apply). Returns a new value; unchanged subtrees are shared.
 */
export function removeItems(
  value: unknown,
  remove: FieldSet,
  keep: FieldSet,
  schema: SchemaNode | undefined,
): unknown {
  const walk = (
    current: unknown,
    removeSet: FieldSet,
    keepSet: FieldSet,
    type: SchemaType,
    path: PathElement[],
    itemKeys: readonly string[] = [],
  ): unknown => {
    if (removeSet.isEmpty()) return current;
    const shape = shapeOf(current, type);
    const drop = (element: PathElement) => removeSet.hasMember(element) && !keepSet.hasMember(element) && keepSet.child(element).isEmpty();
    if (shape === 'map') {
      const result: JsonRecord = { ...(current as JsonRecord) };
      for (const element of removeSet.elements()) {
        if (!element.startsWith('f:')) continue;
        const name = element.slice(2);
        // The key fields of a list item that stays are kept with it.
        if (!(name in result) || itemKeys.includes(name)) continue;
        if (drop(element)) delete result[name];
        else result[name] = walk(result[name], removeSet.child(element), keepSet.child(element), childType(type, name), [...path, element]);
      }
      return result;
    }
    if (shape === 'set' || shape === 'list-map') {
      const listType = type as ListType;
      const itemType = schemaType(listType.items);
      const out: unknown[] = [];
      for (const [element, item] of indexItems(current as unknown[], listType, path, true)) {
        if (drop(element)) continue;
        out.push(
          removeSet.child(element).isEmpty()
            ? item
            : walk(item, removeSet.child(element), keepSet.child(element), itemType, [...path, element], listType.keys),
        );
      }
      return out;
    }
    return current;
  };
  return walk(value, remove, keep, schemaType(schema), []);
}
