import type { KubeObject } from '@kapi/apimachinery';

/** Computes index values of an object (e.g. its namespace). */
export type IndexFunc = (object: KubeObject) => string[];

/** `namespace/name`, or `name` for cluster-scoped objects (client-go MetaNamespaceKeyFunc). */
export function objectKey(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name}` : (name ?? '');
}

/** Index objects by namespace. */
export const namespaceIndex: IndexFunc = (object) => [object.metadata.namespace ?? ''];

/** The informer's local cache: objects by key, plus secondary indexes. */
export class Indexer {
  private readonly items = new Map<string, KubeObject>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly indexers: Record<string, IndexFunc> = { namespace: namespaceIndex }) {
    for (const name of Object.keys(indexers)) this.indices.set(name, new Map());
  }

  get(key: string): KubeObject | undefined {
    return this.items.get(key);
  }

  list(): KubeObject[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  get size(): number {
    return this.items.size;
  }

  /** Objects whose index `indexName` contains `value`. */
  byIndex(indexName: string, value: string): KubeObject[] {
    const keys = this.indices.get(indexName)?.get(value);
    if (!keys) return [];
    return [...keys].map((key) => this.items.get(key)).filter((item): item is KubeObject => item !== undefined);
  }

  /** Adds or replaces an object; returns the previous one. */
  upsert(object: KubeObject): KubeObject | undefined {
    const key = objectKey(object);
    const previous = this.items.get(key);
    if (previous) this.unindex(key, previous);
    this.items.set(key, object);
    this.index(key, object);
    return previous;
  }

  /** Removes an object by key; returns it. */
  remove(key: string): KubeObject | undefined {
    const previous = this.items.get(key);
    if (previous) {
      this.unindex(key, previous);
      this.items.delete(key);
    }
    return previous;
  }

  /** Replaces the whole content (after a list). */
  replace(objects: KubeObject[]): void {
    this.items.clear();
    for (const index of this.indices.values()) index.clear();
    for (const object of objects) this.upsert(object);
  }

  private index(key: string, object: KubeObject): void {
    for (const [name, indexFunc] of Object.entries(this.indexers)) {
      const index = this.indices.get(name);
      if (!index) continue;
      for (const value of indexFunc(object)) {
        let keys = index.get(value);
        if (!keys) index.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private unindex(key: string, object: KubeObject): void {
    for (const [name, indexFunc] of Object.entries(this.indexers)) {
      const index = this.indices.get(name);
      for (const value of indexFunc(object)) index?.get(value)?.delete(key);
    }
  }
}
