import { StatusError, type KubeObject } from '@kapi/apimachinery';
import {
  StorageError,
  predicateMatches,
  type Codec,
  type DeleteOptions,
  type GetOptions,
  type GuaranteedUpdateOptions,
  type Interface,
  type ListOptions,
  type ListResult,
  type Preconditions,
  type StorageWatchEvent,
  type Watch,
} from '@kapi/storage';

/**
 * Test stand-in for @kapi/storage's Store over @kapi/storage-memory (not written yet): one revision
 * counter shared by every store made from the same {@link MemoryStorageState}, values kept as encoded
 * bytes so the codec (and thus hub conversion) is exercised.
 */
export class MemoryStorageState {
  revision = 0;
  readonly entries = new Map<string, { data: Uint8Array; revision: number }>();
  readonly listeners = new Set<(event: { key: string; type: 'ADDED' | 'MODIFIED' | 'DELETED'; data: Uint8Array; previous?: Uint8Array; revision: number }) => void>();
  closed = 0;
}

interface Waiter {
  resolve: (result: IteratorResult<StorageWatchEvent>) => void;
}

class QueueWatch implements Watch {
  private readonly queue: StorageWatchEvent[] = [];
  private waiter: Waiter | undefined;
  private stopped = false;
  private resolveDone!: () => void;
  readonly done = new Promise<void>((resolve) => {
    this.resolveDone = resolve;
  });

  constructor(private readonly onStop: () => void) {}

  push(event: StorageWatchEvent): void {
    if (this.stopped) return;
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter.resolve({ value: event, done: false });
    } else this.queue.push(event);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onStop();
    this.waiter?.resolve({ value: undefined, done: true });
    this.waiter = undefined;
    this.resolveDone();
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageWatchEvent> {
    return {
      next: () => {
        const event = this.queue.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        if (this.stopped) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiter = { resolve };
        });
      },
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** A minimal storage Interface in memory (test stand-in for `createMemoryStorage()`). */
export class MemoryStorage implements Interface {
  constructor(
    private readonly state: MemoryStorageState,
    private readonly codec: Codec,
  ) {}

  private decode(data: Uint8Array, revision: number): KubeObject {
    const object = this.codec.decode(data);
    object.metadata.resourceVersion = String(revision);
    return object;
  }

  private encode(object: KubeObject): Uint8Array {
    const copy = structuredClone(object);
    delete copy.metadata.resourceVersion;
    return this.codec.encode(copy);
  }

  private emit(key: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', data: Uint8Array, revision: number, previous?: Uint8Array): void {
    for (const listener of this.state.listeners) listener({ key, type, data, revision, ...(previous ? { previous } : {}) });
  }

  async create(key: string, object: KubeObject): Promise<KubeObject> {
    if (this.state.entries.has(key)) throw StorageError.keyExists(key);
    const data = this.encode(object);
    const revision = ++this.state.revision;
    this.state.entries.set(key, { data, revision });
    this.emit(key, 'ADDED', data, revision);
    return this.decode(data, revision);
  }

  async get(key: string, options: GetOptions = {}): Promise<KubeObject | undefined> {
    const entry = this.state.entries.get(key);
    if (!entry) {
      if (options.ignoreNotFound) return undefined;
      throw StorageError.keyNotFound(key);
    }
    return this.decode(entry.data, entry.revision);
  }

  async getList(key: string, options: ListOptions = {}): Promise<ListResult> {
    const predicate = options.predicate;
    const keys = [...this.state.entries.keys()].filter((candidate) => candidate.startsWith(key)).sort();
    let start = 0;
    if (predicate?.continue) {
      const decoded = JSON.parse(Buffer.from(predicate.continue, 'base64url').toString()) as { start: string };
      start = keys.findIndex((candidate) => candidate >= decoded.start);
      if (start < 0) start = keys.length;
    }
    const items: KubeObject[] = [];
    let next: string | undefined;
    for (let index = start; index < keys.length; index += 1) {
      const entryKey = keys[index] ?? '';
      const entry = this.state.entries.get(entryKey);
      if (!entry) continue;
      const object = this.decode(entry.data, entry.revision);
      if (!predicateMatches(predicate, object)) continue;
      if (predicate?.limit && items.length === predicate.limit) {
        next = entryKey;
        break;
      }
      items.push(object);
    }
    const result: ListResult = { items, resourceVersion: String(this.state.revision) };
    if (next) result.continue = Buffer.from(JSON.stringify({ start: next })).toString('base64url');
    return result;
  }

  async watch(key: string, options: ListOptions = {}): Promise<Watch> {
    const predicate = options.predicate;
    let listener: Parameters<MemoryStorageState['listeners']['add']>[0] | undefined;
    const watch = new QueueWatch(() => {
      if (listener) this.state.listeners.delete(listener);
    });
    const fromRevision = Number(options.resourceVersion ?? '0');
    if (!options.resourceVersion || options.resourceVersion === '0' || options.sendInitialEvents) {
      const current = await this.getList(key, { ...(predicate ? { predicate: { ...predicate, limit: 0 } } : {}) });
      for (const item of current.items) watch.push({ type: 'ADDED', object: item });
      if (options.sendInitialEvents) {
        watch.push({
          type: 'BOOKMARK',
          object: { metadata: { resourceVersion: current.resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } } },
        });
      }
    } else if (fromRevision > this.state.revision + 1000) {
      throw StatusError.tooLargeResourceVersion(fromRevision, this.state.revision);
    }
    listener = (event) => {
      if (!event.key.startsWith(key) || (options.resourceVersion && !options.sendInitialEvents && event.revision <= fromRevision)) return;
      const object = this.decode(event.data, event.revision);
      if (!predicateMatches(predicate, object)) return;
      watch.push({ type: event.type, object });
    };
    this.state.listeners.add(listener);
    options.signal?.addEventListener('abort', () => watch.stop(), { once: true });
    return watch;
  }

  private checkPreconditions(key: string, current: KubeObject, preconditions?: Preconditions): void {
    if (preconditions?.uid !== undefined && preconditions.uid !== current.metadata.uid) {
      throw StorageError.invalidObject(key, 0, `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${current.metadata.uid ?? ''}`);
    }
    if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== current.metadata.resourceVersion) {
      throw StorageError.invalidObject(
        key,
        0,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
      );
    }
  }

  async guaranteedUpdate(key: string, options: GuaranteedUpdateOptions): Promise<KubeObject> {
    const entry = this.state.entries.get(key);
    if (!entry && !options.ignoreNotFound) throw StorageError.keyNotFound(key);
    const current = entry ? this.decode(entry.data, entry.revision) : { metadata: {} };
    if (entry) this.checkPreconditions(key, current, options.preconditions);
    const result = await options.tryUpdate(structuredClone(current), { resourceVersion: entry?.revision ?? 0 });
    const object = 'object' in result && !('metadata' in result) ? (result.object as KubeObject) : (result as KubeObject);
    const data = this.encode(object);
    if (entry && Buffer.from(data).equals(Buffer.from(entry.data))) return current;
    const revision = ++this.state.revision;
    this.state.entries.set(key, { data, revision });
    this.emit(key, entry ? 'MODIFIED' : 'ADDED', data, revision, entry?.data);
    return this.decode(data, revision);
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<KubeObject> {
    const entry = this.state.entries.get(key);
    if (!entry) throw StorageError.keyNotFound(key);
    const current = this.decode(entry.data, entry.revision);
    this.checkPreconditions(key, current, options.preconditions);
    await options.validateDeletion?.(current);
    this.state.entries.delete(key);
    const revision = ++this.state.revision;
    this.emit(key, 'DELETED', entry.data, revision);
    return this.decode(entry.data, revision);
  }

  async count(key: string): Promise<number> {
    return [...this.state.entries.keys()].filter((candidate) => candidate.startsWith(key)).length;
  }

  async close(): Promise<void> {
    this.state.closed += 1;
  }
}
