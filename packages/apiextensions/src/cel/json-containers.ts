import type { CelList, CelMap, CelValue } from '@bufbuild/cel';

/**
 * CEL maps and lists of converted JSON values, as `celMap`/`celList` build them over a native Map or array,
 * but lighter for the rule evaluation's hot path: the library's brand sits on the prototype instead of
 * costing an object per instance, and reads return the (already converted) values without passing each
 * through `toCel` again. They answer every read exactly as the library's NativeMap and ArrayList do over
 * the same contents (string keys only; `has` is false for a null value, as there).
 */
const mapBrand = Symbol.for('@bufbuild/cel/map');
const listBrand = Symbol.for('@bufbuild/cel/list');

/** A CEL map of a JSON object's converted fields (string keys). */
class JsonCelMap {
  constructor(readonly fields: Map<string, CelValue>) {}

  get size(): number {
    return this.fields.size;
  }

  get(key: unknown): CelValue | undefined {
    // NativeMap looks numeric and boolean keys up as they are (bigint for whole numbers): no string key matches.
    return typeof key === 'string' ? this.fields.get(key) : undefined;
  }

  has(key: unknown): boolean {
    return this.get(key) != undefined;
  }

  forEach(callback: (value: CelValue, key: string, map: JsonCelMap) => void, thisArg?: unknown): void {
    this.fields.forEach((value, key) => callback.call(thisArg, value, key, this));
  }

  entries(): IterableIterator<[string, CelValue]> {
    return this.fields.entries();
  }

  keys(): IterableIterator<string> {
    return this.fields.keys();
  }

  values(): IterableIterator<CelValue> {
    return this.fields.values();
  }

  [Symbol.iterator](): IterableIterator<[string, CelValue]> {
    return this.fields.entries();
  }
}
Object.defineProperty(JsonCelMap.prototype, mapBrand, { value: {} });

/** A CEL list of a JSON array's converted items. */
class JsonCelList {
  constructor(readonly items: readonly CelValue[]) {}

  get size(): number {
    return this.items.length;
  }

  get(index: number): CelValue | undefined {
    if (index < 0 || index >= this.items.length) return undefined;
    const item = this.items[index];
    // ArrayList passes what it reads through toCel, which refuses undefined (a fractional index).
    if (item === undefined) throw new Error('unsupported input undefined');
    return item;
  }

  values(): IterableIterator<CelValue> {
    return this.items.values();
  }

  [Symbol.iterator](): IterableIterator<CelValue> {
    return this.items.values();
  }
}
Object.defineProperty(JsonCelList.prototype, listBrand, { value: {} });

/** A CEL map over converted fields. */
export function jsonCelMap(fields: Map<string, CelValue>): CelMap {
  return new JsonCelMap(fields) as unknown as CelMap;
}

/** A CEL list over converted items. */
export function jsonCelList(items: CelValue[]): CelList {
  return new JsonCelList(items) as unknown as CelList;
}

/** The items of a CEL list without copying them when it is one of these (read only), else undefined. */
export function jsonListItems(list: CelList): readonly CelValue[] | undefined {
  return list instanceof JsonCelList ? list.items : undefined;
}
