import type { KubeObject } from '@kapi/apimachinery';
import { Reflector, type ReflectorOptions, type ReflectorStats } from './reflector.js';
import type { ResourceClient } from './resource-client.js';
import { Indexer, objectKey, type IndexFunc } from './thread-safe-store.js';

/** Callbacks of an {@link Informer}. */
export interface EventHandlers {
  onAdd?(object: KubeObject): void;
  onUpdate?(oldObject: KubeObject, newObject: KubeObject): void;
  onDelete?(object: KubeObject): void;
}

/** Options of an {@link Informer}. */
export interface InformerOptions extends Omit<ReflectorOptions, 'store' | 'client'> {
  indexers?: Record<string, IndexFunc>;
}

/**
 * A shared-informer-like cache: a reflector feeding an indexer, with add/update/delete handlers.
 * After a relist, handlers see adds/updates for what changed and deletes for what disappeared.
 */
export class Informer {
  readonly indexer: Indexer;
  private readonly reflector: Reflector;
  private readonly handlers: EventHandlers[] = [];
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;

  constructor(client: ResourceClient, options: InformerOptions = {}) {
    this.indexer = new Indexer(options.indexers);
    this.reflector = new Reflector({
      ...options,
      client,
      store: {
        replace: (objects) => this.replace(objects),
        add: (object) => this.upsert(object),
        update: (object) => this.upsert(object),
        delete: (object) => this.remove(object),
      },
    });
  }

  /** Registers handlers; returns this for chaining. */
  addEventHandler(handlers: EventHandlers): this {
    this.handlers.push(handlers);
    return this;
  }

  /** Starts listing and watching. */
  start(): void {
    if (this.running) return;
    this.abort = new AbortController();
    this.running = this.reflector.run(this.abort.signal);
  }

  /** Stops the informer and waits for its loop to end. */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.running;
    this.running = undefined;
  }

  hasSynced(): boolean {
    return this.reflector.hasSynced();
  }

  /** Resolves once synced (polling), or rejects after `timeoutMs`. */
  async waitForSync(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.hasSynced()) {
      if (Date.now() > deadline) throw new Error('informer did not sync in time');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  get lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion;
  }

  get stats(): ReflectorStats {
    return this.reflector.stats;
  }

  private upsert(object: KubeObject): void {
    const previous = this.indexer.upsert(object);
    for (const handler of this.handlers) {
      if (previous) handler.onUpdate?.(previous, object);
      else handler.onAdd?.(object);
    }
  }

  private remove(object: KubeObject): void {
    const previous = this.indexer.remove(objectKey(object));
    for (const handler of this.handlers) handler.onDelete?.(previous ?? object);
  }

  private replace(objects: KubeObject[]): void {
    const fresh = new Set(objects.map(objectKey));
    for (const key of this.indexer.keys()) {
      const existing = this.indexer.get(key);
      if (!fresh.has(key) && existing) this.remove(existing);
    }
    for (const object of objects) {
      const previous = this.indexer.get(objectKey(object));
      if (previous?.metadata.resourceVersion === object.metadata.resourceVersion) continue;
      this.upsert(object);
    }
  }
}
