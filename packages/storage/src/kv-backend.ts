import { KapiError } from '@kapi/apimachinery';

/**
 * The raw, revisioned key-value contract that each backend (memory, SQLite, etcd) implements.
 * It is deliberately etcd-shaped and knows nothing of objects: the generic {@link Store} turns it into
 * the storage {@link Interface} (encoding, transformers, selectors, paging, guaranteedUpdate, watch filtering).
 *
 * Revisions are global across all keys, positive, and every successful write (create, update, delete,
 * TTL expiry) advances the revision by exactly one and produces exactly one watch event.
 */
export interface KVBackend {
  /** Short name for messages and metrics (`memory`, `sqlite`, `etcd3`). */
  readonly name: string;
  /** Reads one key, at `revision` when given (fails with {@link RevisionCompactedError} / {@link FutureRevisionError}). */
  get(key: string, options?: { revision?: number }): Promise<KVGetResult>;
  /** Reads keys in order. See {@link KVRangeOptions}. */
  range(options: KVRangeOptions): Promise<KVRangeResult>;
  /**
   * Creates `key` only if it does not exist (else `succeeded:false, reason:'conflict'` with the current entry).
   * The value's bytes are handed over, here and in `update`: the backend may keep them (as the stored
   * value, in watch events) without a copy, so the caller must not modify them afterwards.
   */
  create(key: string, value: Uint8Array, options?: KVWriteOptions): Promise<KVWriteResult>;
  /** Replaces `key` only if its modRevision is `expectedModRevision`. */
  update(key: string, value: Uint8Array, expectedModRevision: number, options?: KVWriteOptions): Promise<KVWriteResult>;
  /** Deletes `key` only if its modRevision is `expectedModRevision`. On success `previous` is the deleted entry. */
  delete(key: string, expectedModRevision: number, options?: KVConditionOptions): Promise<KVWriteResult>;
  /**
   * Watches a key or prefix from `startRevision` (inclusive). Events are delivered in revision order,
   * batched per revision or more. Fails through `listener.onError` with {@link RevisionCompactedError}
   * when `startRevision` is compacted. After onError nothing more is delivered.
   */
  watch(options: KVWatchOptions, listener: KVWatchListener): KVWatch;
  /** The current (latest) revision. */
  currentRevision(): Promise<number>;
  /**
   * Discards history older than `revision` (keeps the latest value of every key). As in etcd, reads and
   * watches at `revision` itself keep working; only revisions below it fail with {@link RevisionCompactedError}.
   */
  compact(revision: number): Promise<void>;
  /** The newest compacted revision (0 when nothing was compacted). */
  compactedRevision(): Promise<number>;
  /**
   * Asks for a progress notification on every watch of this backend, or with `key` at least on the
   * watches of keys under it (a backend may notify more: etcd notifies every watch of the stream). Only
   * present where the backend can guarantee that the notified revision was delivered first (etcd >=
   * 3.4.31 / 3.5.13, memory, SQLite).
   */
  requestProgress?(key?: string): Promise<void>;
  /** Releases everything; pending watches end. */
  close(): Promise<void>;
}

/** One stored key. */
export interface KVEntry {
  key: string;
  value: Uint8Array;
  /** Revision of the write that created this key's current incarnation. */
  createRevision: number;
  /** Revision of the last write to this key. */
  modRevision: number;
  /** Seconds left to live, for keys written with a TTL (best effort). */
  ttlSeconds?: number;
}

export interface KVGetResult {
  entry?: KVEntry;
  /** The revision the read was served at. */
  revision: number;
}

export interface KVRangeOptions {
  /** Exact key or prefix. */
  key: string;
  /** Treat `key` as a prefix. */
  prefix: boolean;
  /** Start at this key (inclusive) instead of the beginning of the range. */
  startKey?: string;
  /** Read at this revision (0/absent: latest). */
  revision?: number;
  /** At most this many entries (0/absent: all). */
  limit?: number;
  /** Return only the count. */
  countOnly?: boolean;
}

export interface KVRangeResult {
  entries: KVEntry[];
  /** True when `limit` cut the result. */
  more: boolean;
  /** Number of keys in the range from `startKey` (ignoring `limit`). */
  count: number;
  /** The revision the read was served at. */
  revision: number;
}

/**
 * A condition checked atomically with the write: the write happens only if `key` currently holds
 * exactly `value` (UTF-8). Used by storage-version voting's strict guarantee.
 */
export interface KVWriteCondition {
  key: string;
  value: string;
}

export interface KVConditionOptions {
  condition?: KVWriteCondition;
}

export interface KVWriteOptions extends KVConditionOptions {
  /** Expire the key after this many seconds (expiry is a delete event). */
  ttlSeconds?: number;
  /**
   * The write only re-encodes an unchanged object (a stale encoding or encryption key, as a storage
   * migration rewrites it): a backend may hold it briefly to commit it with other writes.
   */
  deferrable?: boolean;
}

export type KVWriteResult =
  | { succeeded: true; revision: number; previous?: KVEntry }
  | {
      succeeded: false;
      /** `conflict`: the key exists (create) or its modRevision differs / it is gone (update, delete). `condition`: the write condition failed. */
      reason: 'conflict' | 'condition';
      current?: KVEntry;
      revision: number;
    };

export interface KVWatchOptions {
  key: string;
  prefix: boolean;
  /** First revision to deliver (inclusive). */
  startRevision: number;
  /** Deliver periodic (and requested) progress notifications through `onProgress`. */
  progressNotify?: boolean;
  /**
   * Deliver each event's previous entry (default true). A caller that keeps its own copy of the state (a
   * watch cache) turns it off: a backend may then leave `previous` out of any event (etcd is not asked for
   * `prev_kv`, which costs it a read per event); backends that hold it anyway may still set it.
   */
  previous?: boolean;
}

/** A change to one key. For `delete`, `entry.modRevision` is the deletion's revision and `entry.value` is empty. */
export interface KVEvent {
  type: 'put' | 'delete';
  entry: KVEntry;
  /**
   * The entry before this change: for delete always, for put unless it is a creation, when the watch
   * asked for previous entries (the default; see {@link KVWatchOptions.previous}).
   */
  previous?: KVEntry;
}

export interface KVWatchListener {
  onEvents(events: KVEvent[]): void;
  /** Every event up to and including `revision` that matches the watch has been delivered. */
  onProgress?(revision: number): void;
  onError(error: Error): void;
}

export interface KVWatch {
  cancel(): void;
}

/** A read or watch asked for a revision that compaction has removed. */
export class RevisionCompactedError extends KapiError {
  constructor(
    readonly requestedRevision: number,
    readonly compactedRevision: number,
  ) {
    super(`required revision ${requestedRevision} has been compacted (compacted revision ${compactedRevision})`);
  }
}

/** A read asked for a revision newer than the backend has. */
export class FutureRevisionError extends KapiError {
  constructor(
    readonly requestedRevision: number,
    readonly currentRevision: number,
  ) {
    super(`required revision ${requestedRevision} is a future revision (current ${currentRevision})`);
  }
}

/** The exclusive end of the range of keys that start with `prefix`. */
export function prefixRangeEnd(prefix: string): string {
  return prefix + '\uffff';
}
