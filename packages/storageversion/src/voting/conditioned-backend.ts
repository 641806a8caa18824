import { KapiError } from '@kapi/apimachinery';
import {
  StorageError,
  type KVBackend,
  type KVConditionOptions,
  type KVGetResult,
  type KVRangeOptions,
  type KVRangeResult,
  type KVWatch,
  type KVWatchListener,
  type KVWatchOptions,
  type KVWriteOptions,
  type KVWriteResult,
} from '@kapi/storage';

/** Options of {@link conditionedBackend}. */
export interface ConditionedBackendOptions {
  /** The raw KV key holding the selected storage version (see `StorageVersionVoter.selectionKey`). */
  selectionKey: string;
  /** Writes to keys starting with this prefix are conditioned (the resource's storage prefix). */
  prefix: string;
  /** The selection the values being written were encoded with (what the codec's encodingVersion returns). */
  currentSelection: () => string;
  /**
   * Reads the selection key again and makes {@link currentSelection} (and so the codec) return it. May
   * throw (e.g. the new selection is not decodable by this server); the write then fails with that error.
   */
  refreshSelection: () => Promise<string>;
  /**
   * Re-encodes stored bytes with the current selection: the transformer's fromStorage, the codec's decode,
   * the codec's encode (now at the new selection), the transformer's toStorage. `key` is the storage key
   * (the transformer's authenticated data).
   */
  reencode: (stored: Uint8Array, key: string) => Uint8Array;
  /** Attempts per write before giving up with an Unreachable StorageError; default 10. */
  maxAttempts?: number;
  /** Called after each failed condition (for metrics and tests). */
  onConditionFailed?: (key: string, attemptedSelection: string) => void;
}

/**
 * The strict guarantee of storage-version voting: a {@link KVBackend} decorator that sends every create,
 * update and delete of a key under `prefix` with the condition "the selection key holds the selection the
 * value was encoded with". When the backend answers `reason: 'condition'` (the selection switched), it
 * refreshes the selection, re-encodes the value in the new selection and retries, so a write racing a
 * switch is never stored in the old version. Reads, watches, compaction and writes outside `prefix` pass
 * through unchanged.
 *
 * `currentSelection()` is read when the write is called, so the caller must issue the write in the same
 * synchronous turn as the encode (as `Store` does: encode, then call the backend without an await between),
 * and the codec's `encodingVersion` must be that same `currentSelection`. A caller-supplied condition is
 * refused (a backend checks one condition per write).
 */
export function conditionedBackend(kv: KVBackend, options: ConditionedBackendOptions): KVBackend {
  return new ConditionedBackend(kv, options);
}

class ConditionedBackend implements KVBackend {
  readonly name: string;
  readonly requestProgress?: (key?: string) => Promise<void>;
  private readonly maxAttempts: number;

  constructor(
    private readonly kv: KVBackend,
    private readonly options: ConditionedBackendOptions,
  ) {
    this.name = kv.name;
    this.maxAttempts = options.maxAttempts ?? 10;
    if (kv.requestProgress) {
      const requestProgress = kv.requestProgress.bind(kv);
      this.requestProgress = (key) => requestProgress(key);
    }
  }

  get(key: string, options?: { revision?: number }): Promise<KVGetResult> {
    return this.kv.get(key, options);
  }

  range(options: KVRangeOptions): Promise<KVRangeResult> {
    return this.kv.range(options);
  }

  create(key: string, value: Uint8Array, options?: KVWriteOptions): Promise<KVWriteResult> {
    if (!this.covers(key)) return this.kv.create(key, value, options);
    return this.conditioned(key, value, (bytes, condition) => this.kv.create(key, bytes, { ...options, condition }), options);
  }

  update(key: string, value: Uint8Array, expectedModRevision: number, options?: KVWriteOptions): Promise<KVWriteResult> {
    if (!this.covers(key)) return this.kv.update(key, value, expectedModRevision, options);
    return this.conditioned(
      key,
      value,
      (bytes, condition) => this.kv.update(key, bytes, expectedModRevision, { ...options, condition }),
      options,
    );
  }

  delete(key: string, expectedModRevision: number, options?: KVConditionOptions): Promise<KVWriteResult> {
    if (!this.covers(key)) return this.kv.delete(key, expectedModRevision, options);
    return this.conditioned(key, undefined, (_bytes, condition) => this.kv.delete(key, expectedModRevision, { ...options, condition }), options);
  }

  watch(options: KVWatchOptions, listener: KVWatchListener): KVWatch {
    return this.kv.watch(options, listener);
  }

  currentRevision(): Promise<number> {
    return this.kv.currentRevision();
  }

  compact(revision: number): Promise<void> {
    return this.kv.compact(revision);
  }

  compactedRevision(): Promise<number> {
    return this.kv.compactedRevision();
  }

  close(): Promise<void> {
    return this.kv.close();
  }

  private covers(key: string): boolean {
    return key.startsWith(this.options.prefix) && key !== this.options.selectionKey;
  }

  private async conditioned(
    key: string,
    value: Uint8Array | undefined,
    write: (bytes: Uint8Array, condition: { key: string; value: string }) => Promise<KVWriteResult>,
    callerOptions: KVConditionOptions | undefined,
  ): Promise<KVWriteResult> {
    if (callerOptions?.condition) {
      throw new KapiError(`a write to ${key} cannot carry its own condition: it is conditioned on the storage version selection`);
    }
    let bytes = value ?? new Uint8Array(0);
    let selection = this.options.currentSelection();
    for (let attempt = 1; ; attempt++) {
      const result = await write(bytes, { key: this.options.selectionKey, value: selection });
      if (result.succeeded || result.reason !== 'condition') return result;
      this.options.onConditionFailed?.(key, selection);
      if (attempt >= this.maxAttempts) {
        throw StorageError.unreachable(
          key,
          `storage version selection ${JSON.stringify(selection)} did not match key ${this.options.selectionKey} after ${attempt} attempts`,
        );
      }
      await this.options.refreshSelection();
      const next = this.options.currentSelection();
      // Re-encode even when the selection reads the same: the bytes may be from before a refresh done by someone else.
      if (value !== undefined) bytes = this.options.reencode(bytes, key);
      selection = next;
    }
  }
}
