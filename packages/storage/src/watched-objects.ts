import type { KubeObject } from '@kapi/apimachinery';
import type { Interface } from './interfaces.js';

/** The storage (and key prefix) of one resource. */
export interface WatchedStorage {
  storage: Interface;
  prefix: string;
}

/**
 * A map of one resource's objects kept current by a storage watch, restarted (from a fresh list) when it
 * ends: what a server reads on every request without a storage call (e.g. webhook configurations,
 * policies, RBAC rules).
 */
export class WatchedObjects {
  /** The objects by `<namespace>/<name>` (`/<name>` when cluster-scoped). */
  readonly objects = new Map<string, KubeObject>();
  /** Bumped on every change: callers may cache what they derive from `objects` per generation. */
  generation = 0;
  private stopped = false;
  private synced!: () => void;
  readonly ready = new Promise<void>((resolve) => (this.synced = resolve));

  constructor(private readonly source: WatchedStorage) {}

  /** Watches each storage; resolves with the maps once every one has listed. */
  static async started<K extends string>(storages: Record<K, WatchedStorage>): Promise<Record<K, WatchedObjects>> {
    const entries = Object.entries(storages).map(([name, storage]) => [name, new WatchedObjects(storage as WatchedStorage)] as const);
    for (const [, watched] of entries) watched.start();
    await Promise.all(entries.map(([, watched]) => watched.ready));
    return Object.fromEntries(entries) as Record<K, WatchedObjects>;
  }

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const list = await this.source.storage.getList(`${this.source.prefix}/`, { recursive: true, resourceVersion: '' });
        this.objects.clear();
        for (const item of list.items) this.objects.set(keyOf(item), item);
        this.generation += 1;
        this.synced();
        const watch = await this.source.storage.watch(`${this.source.prefix}/`, { recursive: true, resourceVersion: list.resourceVersion });
        for await (const event of watch) {
          if (this.stopped) {
            watch.stop();
            break;
          }
          if (event.type === 'ERROR') break;
          if (event.type === 'BOOKMARK') continue;
          const object = event.object as KubeObject;
          if (event.type === 'DELETED') this.objects.delete(keyOf(object));
          else this.objects.set(keyOf(object), object);
          this.generation += 1;
        }
      } catch {
        // fall through to the retry pause
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

const keyOf = (object: KubeObject) => `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
