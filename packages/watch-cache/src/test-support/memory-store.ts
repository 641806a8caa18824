import type { KubeObject } from '@kapi/apimachinery';
import {
  Store,
  type Compactor,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type GuaranteedUpdateOptions,
  type Interface,
  type ListOptions,
  type ListResult,
  type ProgressRequester,
  type RevisionReader,
  type Watch,
} from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';

export { MemoryBackend, Store };

/** A fresh memory backend and the Store over it. */
export function newMemoryStore(progressNotifyIntervalMs = 200): { kv: MemoryBackend; store: Store } {
  const kv = new MemoryBackend({ progressNotifyIntervalMs });
  return { kv, store: new Store({ kv }) };
}

/**
 * Delegates to a storage and counts/controls calls, for tests: how many lists and watches the cacher
 * made, and a way to break its current backend watch.
 */
export class InstrumentedStorage implements Interface, ProgressRequester, RevisionReader, Compactor {
  lists = 0;
  watches: Array<{ options: ListOptions; watch: Watch }> = [];
  progressRequests = 0;
  /** The key of each progress request, in order (undefined: every watch). */
  progressKeys: Array<string | undefined> = [];
  /** While true, progress requests are counted but not forwarded (simulates a backend slow to answer). */
  holdProgress = false;

  constructor(readonly inner: Store) {}

  create(key: string, object: KubeObject, options?: CreateOptions): Promise<KubeObject> {
    return this.inner.create(key, object, options);
  }
  get(key: string, options?: GetOptions): Promise<KubeObject | undefined> {
    return this.inner.get(key, options);
  }
  getList(key: string, options?: ListOptions): Promise<ListResult> {
    this.lists++;
    return this.inner.getList(key, options);
  }
  async watch(key: string, options: ListOptions = {}): Promise<Watch> {
    const watch = await this.inner.watch(key, options);
    this.watches.push({ options, watch });
    return watch;
  }
  guaranteedUpdate(key: string, options: GuaranteedUpdateOptions): Promise<KubeObject> {
    return this.inner.guaranteedUpdate(key, options);
  }
  delete(key: string, options?: DeleteOptions): Promise<KubeObject> {
    return this.inner.delete(key, options);
  }
  count(key: string): Promise<number> {
    return this.inner.count(key);
  }
  async requestWatchProgress(key?: string): Promise<void> {
    this.progressRequests++;
    this.progressKeys.push(key);
    if (!this.holdProgress) await this.inner.requestWatchProgress(key);
  }
  getCurrentResourceVersion(): Promise<number> {
    return this.inner.getCurrentResourceVersion();
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  compactRevision(): Promise<number> {
    return this.inner.compactRevision();
  }

  /** The backend watch opened last. */
  get lastWatch(): { options: ListOptions; watch: Watch } | undefined {
    return this.watches[this.watches.length - 1];
  }
}

/** A ConfigMap-like object. */
export function configMap(name: string, options: { namespace?: string; labels?: Record<string, string>; value?: string } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      ...(options.labels ? { labels: options.labels } : {}),
    },
    data: { value: options.value ?? name },
  };
}
