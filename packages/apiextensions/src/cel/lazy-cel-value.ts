import type { CelInput, CelValue } from '@bufbuild/cel';
import { isRecord, type SchemaNode } from '../schema/schema-node.js';
import { schemaFacts, type SchemaFacts } from '../schema/schema-facts.js';
import { escapePropertyName } from './cel-value.js';
import { listBrand, mapBrand } from './json-containers.js';

/** Each schema node's declared properties by CEL name (escaped) -> property key, built once per node. */
const celNames = new WeakMap<SchemaFacts, ReadonlyMap<string, string>>();

function celNamesOf(facts: SchemaFacts): ReadonlyMap<string, string> {
  let names = celNames.get(facts);
  if (names === undefined) {
    names = new Map([...facts.properties.keys()].map((key) => [escapePropertyName(key), key]));
    celNames.set(facts, names);
  }
  return names;
}

/** A scalar as `toCelValue` converts it under a schema of this `type` (objects and arrays are not scalars). */
function scalar(value: unknown, type: unknown): CelInput {
  if (typeof value === 'number') return type === 'number' || !Number.isInteger(value) ? value : BigInt(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  return null;
}

/**
 * A JSON value as a CEL value typed by its schema, converted as rules read it: what `toCelValue` returns,
 * read for read, but an object or array is only wrapped, and its children are converted when first read.
 * A rule tree reads a few fields of a custom resource (headers, modifiers and other subtrees no rule
 * reads are never converted), and each container converted costs a Map and a wrapper.
 */
export function toLazyCelValue(value: unknown, schema: SchemaNode | undefined): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return scalar(value, schema?.['type']);
  const facts = schema === undefined ? undefined : schemaFacts(schema);
  if (Array.isArray(value)) return new LazyCelList(value, facts?.items) as unknown as CelValue;
  if (isRecord(value)) return new LazyCelMap(value, facts) as unknown as CelValue;
  return null;
}

/** A CEL map over a JSON object; `toCelValue`'s map of it when iterated or sized (children still lazy). */
class LazyCelMap {
  /** The converted fields under their CEL names, once something needed them all. */
  private fields: Map<string, CelValue> | undefined;
  /**
   * Objects, arrays and ints already converted, as CEL name, value, name, value...: rules reading one
   * twice get the same value. A few entries (what rules read), so a list, not a Map.
   */
  private converted: (string | CelValue)[] | undefined;

  constructor(
    private readonly object: Record<string, unknown>,
    private readonly facts: SchemaFacts | undefined,
  ) {}

  private all(): Map<string, CelValue> {
    if (this.fields === undefined) {
      const fields = new Map<string, CelValue>();
      const facts = this.facts;
      for (const key in this.object) {
        const child = this.object[key];
        if (child === undefined) continue;
        const property = facts?.properties.get(key);
        const name = property !== undefined ? escapePropertyName(key) : key;
        fields.set(name, this.convert(name, child, property ?? facts?.additionalProperties));
      }
      this.fields = fields;
    }
    return this.fields;
  }

  private convert(name: string, value: unknown, schema: SchemaNode | undefined): CelValue {
    if (typeof value !== 'object' && typeof value !== 'number') return scalar(value, undefined) as CelValue;
    const cache = this.converted;
    if (cache !== undefined)
      for (let index = 0; index < cache.length; index += 2) if (cache[index] === name) return cache[index + 1] as CelValue;
    const converted = (typeof value === 'number' ? scalar(value, schema?.['type']) : toLazyCelValue(value, schema)) as CelValue;
    if (cache === undefined) this.converted = [name, converted];
    else cache.push(name, converted);
    return converted;
  }

  get size(): number {
    return this.all().size;
  }

  get(key: unknown): CelValue | undefined {
    // As JsonCelMap (and NativeMap): numeric and boolean keys match no string key.
    if (typeof key !== 'string') return undefined;
    if (this.fields !== undefined) return this.fields.get(key);
    const facts = this.facts;
    const object = this.object;
    if (facts === undefined) return Object.hasOwn(object, key) ? this.found(key, object[key], undefined) : undefined;
    const declared = celNamesOf(facts).get(key);
    if (declared !== undefined) {
      // An undeclared key spelled like a declared property's escaped name: the conversion's order decides.
      if (declared !== key && Object.hasOwn(object, key)) return this.all().get(key);
      return Object.hasOwn(object, declared) ? this.found(key, object[declared], facts.properties.get(declared)) : undefined;
    }
    // A declared property is only known by its CEL name; an undeclared key by itself.
    if (facts.properties.has(key) || !Object.hasOwn(object, key)) return undefined;
    return this.found(key, object[key], facts.additionalProperties);
  }

  private found(name: string, value: unknown, schema: SchemaNode | undefined): CelValue | undefined {
    return value === undefined ? undefined : this.convert(name, value, schema);
  }

  has(key: unknown): boolean {
    return this.get(key) != undefined;
  }

  forEach(callback: (value: CelValue, key: string, map: LazyCelMap) => void, thisArg?: unknown): void {
    this.all().forEach((value, key) => callback.call(thisArg, value, key, this));
  }

  entries(): IterableIterator<[string, CelValue]> {
    return this.all().entries();
  }

  keys(): IterableIterator<string> {
    return this.all().keys();
  }

  values(): IterableIterator<CelValue> {
    return this.all().values();
  }

  [Symbol.iterator](): IterableIterator<[string, CelValue]> {
    return this.all().entries();
  }
}
Object.defineProperty(LazyCelMap.prototype, mapBrand, { value: {} });

/** A CEL list over a JSON array, its items converted (objects and arrays wrapped) when first read. */
class LazyCelList {
  private converted: CelValue[] | undefined;

  constructor(
    private readonly array: readonly unknown[],
    private readonly itemSchema: SchemaNode | undefined,
  ) {}

  /** The converted items (read only). */
  get items(): readonly CelValue[] {
    if (this.converted === undefined) {
      const converted = new Array<CelValue>(this.array.length);
      for (let index = 0; index < this.array.length; index++)
        converted[index] = toLazyCelValue(this.array[index], this.itemSchema) as CelValue;
      this.converted = converted;
    }
    return this.converted;
  }

  get size(): number {
    return this.array.length;
  }

  get(index: number): CelValue | undefined {
    if (index < 0 || index >= this.array.length) return undefined;
    const item = this.items[index];
    // As JsonCelList: a fractional index reads undefined, which ArrayList's toCel refuses.
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
Object.defineProperty(LazyCelList.prototype, listBrand, { value: {} });

/** The items of a lazy CEL list (converted on the way, read only), else undefined. */
export function lazyListItems(list: unknown): readonly CelValue[] | undefined {
  return list instanceof LazyCelList ? list.items : undefined;
}
