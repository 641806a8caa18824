import type { KubeObject } from '@kapi/apimachinery';

/** Computes the values an object is indexed under (e.g. its `spec.nodeName`). */
export type IndexFunc = (object: KubeObject) => string[];

/**
 * Indexes of the cache, by field name (as used in field selectors, e.g. `spec.nodeName`). A list whose
 * field selector pins an indexed field to one value reads only the matching objects.
 */
export type Indexers = Readonly<Record<string, IndexFunc>>;

/** Which part of the store a read covers. */
export interface KeyScope {
  key: string;
  /** Every key below `key` (as a directory) instead of exactly `key`. */
  recursive: boolean;
}

/** The directory form of a prefix key: `/registry/pods` and `/registry/pods/` both cover `/registry/pods/...`. */
export function directoryOf(key: string): string {
  return key.endsWith('/') ? key : `${key}/`;
}

/** True when `candidate` lies in `scope`. */
export function inScope(scope: KeyScope, candidate: string): boolean {
  return scope.recursive ? candidate.startsWith(directoryOf(scope.key)) : candidate === scope.key;
}

/** Names a scope: scopes with the same name cover the same keys. */
export function scopeName(scope: KeyScope): string {
  return scope.recursive ? `prefix ${directoryOf(scope.key)}` : `key ${scope.key}`;
}

/** {@link inScope} for one scope, with its directory made once. */
export function scopeMatcher(scope: KeyScope): (candidate: string) => boolean {
  if (!scope.recursive) return (candidate) => candidate === scope.key;
  const directory = directoryOf(scope.key);
  return (candidate) => candidate.startsWith(directory);
}

/** Keys added or removed since the last list up to which they are spliced into the key order one by one. */
const spliceLimit = 32;

/**
 * The current state of the cache: the latest object per key, listed in key order (the backend's order),
 * with optional secondary indexes. The key order is maintained lazily: keys added or removed since the
 * last list are merged in by the next one, so writes stay O(1).
 */
export class CacheStore {
  private readonly objects = new Map<string, KubeObject>();
  private sortedKeys: string[] = [];
  /** Keys stored but not yet in `sortedKeys`. */
  private readonly addedKeys = new Set<string>();
  /** Keys in `sortedKeys` that are no longer stored. */
  private readonly removedKeys = new Set<string>();
  private readonly indexes = new Map<string, { indexFunc: IndexFunc; keysByValue: Map<string, Set<string>> }>();

  constructor(indexers: Indexers = {}) {
    for (const [name, indexFunc] of Object.entries(indexers)) {
      this.indexes.set(name, { indexFunc, keysByValue: new Map() });
    }
  }

  get size(): number {
    return this.objects.size;
  }

  /** True when a field selector on `field` can be answered from an index. */
  hasIndex(field: string): boolean {
    return this.indexes.has(field);
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** Stores the latest state of `key`; returns the state it replaces, if any. */
  set(key: string, object: KubeObject): KubeObject | undefined {
    const previous = this.objects.get(key);
    if (previous) this.unindex(key, previous);
    else if (!this.removedKeys.delete(key)) this.addedKeys.add(key);
    this.objects.set(key, object);
    this.index(key, object);
    return previous;
  }

  /** Forgets `key`; returns the state it held, if any. */
  delete(key: string): KubeObject | undefined {
    const previous = this.objects.get(key);
    if (!previous) return undefined;
    this.unindex(key, previous);
    this.objects.delete(key);
    if (!this.addedKeys.delete(key)) this.removedKeys.add(key);
    return previous;
  }

  /** Replaces the whole state. */
  replace(entries: Iterable<readonly [string, KubeObject]>): void {
    this.clear();
    for (const [key, object] of entries) {
      this.objects.set(key, object);
      this.index(key, object);
    }
    this.sortKeys();
  }

  /**
   * Replaces the whole state with `objects`, each stored under `keyOf(object)` (as {@link replace},
   * without a pair per object: a cache fill passes every object of the resource).
   */
  replaceObjects(objects: readonly KubeObject[], keyOf: (object: KubeObject) => string): void {
    this.clear();
    for (const object of objects) {
      const key = keyOf(object);
      this.objects.set(key, object);
      this.index(key, object);
    }
    this.sortKeys();
  }

  private clear(): void {
    this.objects.clear();
    for (const index of this.indexes.values()) index.keysByValue.clear();
    this.addedKeys.clear();
    this.removedKeys.clear();
  }

  /** Orders every stored key; a list comes from the backend in key order, so usually nothing moves. */
  private sortKeys(): void {
    const keys = [...this.objects.keys()];
    if (!isSorted(keys)) keys.sort(compareKeys);
    this.sortedKeys = keys;
  }

  /**
   * The objects in `scope`, in key order. With `indexed`, only those whose index `indexed.field`
   * holds `indexed.value`.
   */
  list(scope: KeyScope, indexed?: { field: string; value: string }): KubeObject[] {
    if (!scope.recursive) {
      const object = this.objects.get(scope.key);
      return object ? [object] : [];
    }
    const directory = directoryOf(scope.key);
    const index = indexed && this.indexes.get(indexed.field);
    if (index && indexed) {
      const keys = [...(index.keysByValue.get(indexed.value) ?? [])].filter((key) => key.startsWith(directory));
      return keys.sort(compareKeys).map((key) => this.objects.get(key) as KubeObject);
    }
    return this.first(scope, Infinity).items;
  }

  /**
   * The first `limit` objects in `scope` in key order, and how many objects the scope holds in all,
   * found without visiting the others: a page of a large directory costs its own objects, not the
   * directory's (each object costs a hash lookup, which on a large cache is a cache miss or more).
   */
  first(scope: KeyScope, limit: number): { items: KubeObject[]; total: number } {
    if (!scope.recursive) {
      const object = this.objects.get(scope.key);
      return { items: object && limit > 0 ? [object] : [], total: object ? 1 : 0 };
    }
    const directory = directoryOf(scope.key);
    this.mergeKeys();
    const start = this.insertionPoint(directory);
    // Past the last key under `directory/`: the same text with its final "/" raised to the next character.
    const end = this.insertionPoint(`${directory.slice(0, -1)}${String.fromCharCode(directory.charCodeAt(directory.length - 1) + 1)}`);
    const stop = Math.min(end, start + limit);
    const items = new Array<KubeObject>(Math.max(stop - start, 0));
    for (let position = start; position < stop; position++) {
      items[position - start] = this.objects.get(this.sortedKeys[position] as string) as KubeObject;
    }
    return { items, total: end - start };
  }

  /**
   * Brings `sortedKeys` up to date with the keys added and removed since the last merge: a few are put in
   * place one by one (a binary search and a splice each), more in one merge pass over every key.
   */
  private mergeKeys(): void {
    const changes = this.addedKeys.size + this.removedKeys.size;
    if (changes === 0) return;
    if (changes <= spliceLimit) {
      for (const key of this.removedKeys) {
        const position = this.insertionPoint(key);
        if (this.sortedKeys[position] === key) this.sortedKeys.splice(position, 1);
      }
      for (const key of this.addedKeys) this.sortedKeys.splice(this.insertionPoint(key), 0, key);
      this.addedKeys.clear();
      this.removedKeys.clear();
      return;
    }
    const kept = this.removedKeys.size === 0 ? this.sortedKeys : this.sortedKeys.filter((key) => !this.removedKeys.has(key));
    const added = [...this.addedKeys].sort(compareKeys);
    const merged: string[] = new Array<string>(kept.length + added.length);
    let left = 0;
    let right = 0;
    for (let index = 0; index < merged.length; index++) {
      const next = right >= added.length || (left < kept.length && compareKeys(kept[left] as string, added[right] as string) < 0);
      merged[index] = next ? (kept[left++] as string) : (added[right++] as string);
    }
    this.sortedKeys = merged;
    this.addedKeys.clear();
    this.removedKeys.clear();
  }

  private insertionPoint(key: string): number {
    let low = 0;
    let high = this.sortedKeys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareKeys(this.sortedKeys[middle] as string, key) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private index(key: string, object: KubeObject): void {
    if (this.indexes.size === 0) return;
    for (const { indexFunc, keysByValue } of this.indexes.values()) {
      for (const value of indexFunc(object)) {
        let keys = keysByValue.get(value);
        if (!keys) keysByValue.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private unindex(key: string, object: KubeObject): void {
    if (this.indexes.size === 0) return;
    for (const { indexFunc, keysByValue } of this.indexes.values()) {
      for (const value of indexFunc(object)) {
        const keys = keysByValue.get(value);
        keys?.delete(key);
        if (keys?.size === 0) keysByValue.delete(value);
      }
    }
  }
}

/** True when every key is above the one before it (a backend's list order). */
function isSorted(keys: readonly string[]): boolean {
  for (let position = 1; position < keys.length; position++) {
    if ((keys[position - 1] as string) >= (keys[position] as string)) return false;
  }
  return true;
}

function compareKeys(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
