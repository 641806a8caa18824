import type { KubeObject } from '@kapi/apimachinery';
import type { StorageWatchEvent } from '@kapi/storage';

/** The type of a change recorded by the watch cache. */
export type WatchCacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * One change recorded by the watch cache, shared by every watcher it is delivered to. The watch events
 * built from it (and so the objects they carry) are created once and reused, so a server can cache one
 * serialization per object and encoding (see {@link cachedSerialization}).
 */
export class WatchCacheEvent {
  private added: StorageWatchEvent | undefined;
  private modified: StorageWatchEvent | undefined;
  private deleted: StorageWatchEvent | undefined;

  constructor(
    readonly type: WatchCacheEventType,
    /** The storage key of the object. */
    readonly key: string,
    /** The new state; for DELETED, the last state carrying the deletion's resourceVersion. */
    readonly object: KubeObject,
    /** The state before this change (absent for a creation). */
    readonly previousObject: KubeObject | undefined,
    readonly resourceVersion: number,
    /** When the cache recorded the event (clock milliseconds), for the history window. */
    readonly recordTime: number,
  ) {}

  /** `ADDED` with the new state: a creation, or an update that made the object enter a watcher's selection. */
  asAdded(): StorageWatchEvent {
    this.added ??= { type: 'ADDED', object: this.object };
    return this.added;
  }

  /** `MODIFIED` with the new state. */
  asModified(): StorageWatchEvent {
    this.modified ??= this.previousObject
      ? { type: 'MODIFIED', object: this.object, previousObject: this.previousObject }
      : { type: 'MODIFIED', object: this.object };
    return this.modified;
  }

  /**
   * `DELETED`: a deletion, or an update that made the object leave a watcher's selection (then the
   * object is the previous state carrying this event's resourceVersion, as upstream does).
   */
  asDeleted(): StorageWatchEvent {
    if (!this.deleted) {
      if (this.type === 'DELETED') {
        this.deleted = this.previousObject
          ? { type: 'DELETED', object: this.object, previousObject: this.previousObject }
          : { type: 'DELETED', object: this.object };
      } else {
        const previous = this.previousObject ?? this.object;
        const object = { ...previous, metadata: { ...previous.metadata, resourceVersion: String(this.resourceVersion) } };
        this.deleted = { type: 'DELETED', object, previousObject: previous };
      }
    }
    return this.deleted;
  }

  /** The object a selector is matched against before the change (for DELETED, its last state). */
  get objectBefore(): KubeObject | undefined {
    return this.type === 'DELETED' ? (this.previousObject ?? this.object) : this.previousObject;
  }
}
