import type { KubeObject } from '@kapi/apimachinery';
import { listKey } from '@kapi/server';
import type { Interface, StorageWatchEvent, Watch } from '@kapi/storage';

/** What a {@link StorageInformer} tells its owner. */
export interface StorageInformerHandlers {
  /** An object was added or changed (shared with the cache: read it, never change it). */
  onUpsert(object: KubeObject): void;
  /** The object of `uid` was deleted. */
  onDelete(object: KubeObject): void;
  /**
   * A relist (after the watch ended or failed) found exactly `uids`: objects seen before and missing now
   * were deleted meanwhile.
   */
  onRelist(uids: ReadonlySet<string>): void;
  /** A list or watch failed (it is retried). */
  onError?(error: unknown): void;
}

/** Delay before a failed list or watch is tried again. */
const retryDelayMs = 1000;

/**
 * An informer fed by a resource's storage in this process (its watch cache) instead of a watch over
 * loopback HTTP: list, then watch from the list's resourceVersion; when the watch ends or reports an
 * error (a compacted resourceVersion), list again. No encoding, TLS or parsing per event, which is what
 * a watch of every resource costs the server's writes otherwise.
 */
export class StorageInformer {
  private synced = false;
  private stopped = false;
  private watch: Watch | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: { storage: Interface; prefix: string },
    private readonly handlers: StorageInformerHandlers,
  ) {}

  /** Starts listing and watching. */
  start(): void {
    void this.run();
  }

  /** Whether the first list has been handed over. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Stops the watch. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.watch?.stop();
    await this.watch?.done;
  }

  private async run(): Promise<void> {
    const key = listKey(this.source.prefix, '');
    try {
      const list = await this.source.storage.getList(key, { recursive: true, resourceVersion: '0' });
      if (this.stopped) return;
      const uids = new Set<string>();
      for (const object of list.items) {
        if (object.metadata.uid) uids.add(object.metadata.uid);
        this.handlers.onUpsert(object);
      }
      this.handlers.onRelist(uids);
      this.synced = true;
      this.watch = await this.source.storage.watch(key, { recursive: true, resourceVersion: list.resourceVersion });
      if (this.stopped) {
        this.watch.stop();
        return;
      }
      for await (const event of this.watch) {
        if (this.stopped) return;
        if (!this.apply(event)) break;
      }
      this.watch.stop();
    } catch (error) {
      if (this.stopped) return;
      this.handlers.onError?.(error);
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.run(), this.synced ? 0 : retryDelayMs);
    this.timer.unref();
  }

  /** Hands one event over; false when the watch must be restarted (an ERROR event). */
  private apply(event: StorageWatchEvent): boolean {
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        this.handlers.onUpsert(event.object as KubeObject);
        return true;
      case 'DELETED':
        this.handlers.onDelete(event.object as KubeObject);
        return true;
      case 'BOOKMARK':
        return true;
      default:
        return false;
    }
  }
}
