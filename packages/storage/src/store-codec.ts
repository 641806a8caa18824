import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { Codec, ValueTransformer } from './codec.js';
import { FutureRevisionError, RevisionCompactedError, type KVEntry } from './kv-backend.js';
import { deepCopy } from './deep-copy.js';
import { jsonCopy } from './json-copy.js';
import { RecentWrites } from './recent-writes.js';
import { markDecodedStale } from './stale-objects.js';
import { StorageError } from './storage-error.js';

/** A stored entry decoded into an object. */
export interface DecodedEntry {
  object: KubeObject;
  /** The plain (untransformed) encoded bytes, for the no-op write check. */
  data: Uint8Array;
  /** The transformer wants the value rewritten (e.g. it was read with an old key). */
  stale: boolean;
  modRevision: number;
  ttlSeconds?: number | undefined;
}

/** An object encoded for storage. */
export interface EncodedObject {
  /** Plain codec output. */
  data: Uint8Array;
  /** What goes to the backend (transformed). */
  stored: Uint8Array;
  /**
   * The object `data` is the JSON of, when the codec encoded it verbatim ({@link Codec.encodesVerbatim}):
   * the write's read-back copies it rather than parsing `data`. It is the caller's (partly shared with the
   * object it passed): read only while the write is in flight.
   */
  source?: KubeObject | undefined;
  /**
   * The caller gave `source` to the store (CreateOptions.handOver): the write's read-back is `source`
   * itself, and its watch event gets a copy, or with `share` (CreateOptions.shareResult) `source` too.
   */
  handedOver?: HandOver;
}

/** How a caller gives its object to the store (see {@link EncodedObject.handedOver}). */
export type HandOver = 'copy' | 'share';

/** Encoding, decoding and transformation of a store's objects, with storage errors naming the key. */
export class StoreCodec {
  private readonly recentWrites = new RecentWrites();
  /** Live watches of the store: while there are any, a write's read-back is shared with its watch event. */
  private watches = 0;

  constructor(
    readonly codec: Codec,
    readonly transformer: ValueTransformer,
    readonly maxObjectSize: number,
  ) {}

  /**
   * Encodes `object` without its resourceVersion, transforms it, and enforces the size limit. `handOver`:
   * the caller gives `object` to the store (see {@link EncodedObject.handedOver}).
   */
  encode(key: string, object: KubeObject, handOver?: HandOver): EncodedObject {
    const plain = withoutResourceVersion(object);
    const data = this.codec.encode(plain);
    const stored = this.transformer.toStorage(data, { key });
    if (stored.byteLength > this.maxObjectSize) {
      throw StorageError.requestTooLarge(key, stored.byteLength, this.maxObjectSize);
    }
    if (this.codec.encodesVerbatim?.(plain) !== true) return { data, stored };
    return handOver ? { data, stored, source: plain, handedOver: handOver } : { data, stored, source: plain };
  }

  /** The codec bytes of `object` with `metadata.resourceVersion` cleared. */
  encodePlain(object: KubeObject): Uint8Array {
    return this.codec.encode(withoutResourceVersion(object));
  }

  /**
   * Records that `encoded` is being written at `key`: decoding those bytes back (the write's watch event)
   * skips the transformer, and decodes the very plain buffer the codec encoded (what a codec that
   * {@link Codec.recognizesOwnEncodings} recognises). Called before the write (its event may come first); the pairing of stored and
   * plain bytes holds whether or not the write succeeds.
   */
  written(key: string, encoded: EncodedObject): void {
    const handedOver = encoded.handedOver;
    if (encoded.stored !== encoded.data || this.codec.recognizesOwnEncodings === true)
      this.recentWrites.remember(key, encoded.stored, encoded.data, false, encoded.source, handedOver);
    else if (this.watches > 0) this.recentWrites.remember(key, encoded.stored, encoded.data, true, encoded.source, handedOver);
  }

  /**
   * The write of `encoded` at `key` has returned (committed or not): its source object is the caller's
   * again, so a watch event of those bytes still to come parses them (or takes the writer's copy).
   */
  writeReturned(key: string, encoded: EncodedObject): void {
    if (encoded.source !== undefined) this.recentWrites.forgetSource(key, encoded.stored);
  }

  /**
   * Notes a watch of the store (until the returned function is called): while one is live, each write is
   * remembered (whatever the transformer) so that it and its watch event parse its bytes once, in
   * either order (see {@link decodeEvent}, {@link decodeWritten}).
   */
  watchStarted(): () => void {
    this.watches++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.watches--;
    };
  }

  /** The transformer says, from the stored value's prefix alone, that reading it would report it stale. */
  readsStale(entry: KVEntry): boolean {
    return this.transformer.readsStale?.(entry.value) ?? false;
  }

  /** Number of writes remembered (see {@link RecentWrites}). */
  get rememberedWrites(): number {
    return this.recentWrites.size;
  }

  /** Decodes an entry, setting `metadata.resourceVersion` to `resourceVersion` (default: its modRevision). */
  decode(entry: KVEntry, resourceVersion = entry.modRevision): DecodedEntry {
    let data: Uint8Array;
    let stale: boolean;
    const written = this.recentWrites.plainOf(entry.key, entry.value);
    try {
      ({ data, stale } = written ? { data: written, stale: this.readsStale(entry) } : this.transformer.fromStorage(entry.value, { key: entry.key }));
    } catch (error) {
      throw StorageError.corruptObject(entry.key, `unable to transform key "${entry.key}": ${messageOf(error)}`, error);
    }
    const object = this.decodePlain(entry.key, data, resourceVersion);
    if (stale && entry.ttlSeconds === undefined) markDecodedStale(object);
    return { object, data, stale, modRevision: entry.modRevision, ttlSeconds: entry.ttlSeconds };
  }

  /**
   * {@link decode} for a watch event: when the entry is this store's own recent write, it takes the copy
   * the writer kept when it read the write back first ({@link decodeWritten}); otherwise the decoded object
   * is kept for the writer, which would otherwise parse the same bytes again, and the event gets a deep
   * copy of it (cheaper than a parse: the strings are shared).
   */
  decodeEvent(entry: KVEntry): KubeObject {
    const written = this.recentWrites.entryOf(entry.key, entry.value);
    if (!written || entry.ttlSeconds !== undefined || this.readsStale(entry)) return this.decode(entry).object;
    const kept = this.recentWrites.takeForEvent(entry.key, written, entry.modRevision);
    if (kept) return kept;
    if (written.decoded?.revision === entry.modRevision) return deepCopy(written.decoded.object);
    if (written.handedOver && written.source) {
      // The writer reads back its own object: the event's copy is the only one to make, if any.
      const object = this.handedOverForEvent(entry.key, written.data, written.source, written.handedOver, entry.modRevision);
      this.recentWrites.eventDecoded(entry.key, written);
      return object;
    }
    const object = this.readBack(entry.key, written.data, written.source, entry.modRevision);
    this.recentWrites.keepDecoded(entry.key, written.stored, object, entry.modRevision);
    return deepCopy(object);
  }

  /**
   * The object a write of `encoded` at `key` committed at `revision` reads back: the one a watch event of
   * that write decoded (see {@link decodeEvent}), else a parse of `encoded.data`, of which a deep copy is
   * then kept for the watch event still to come while the store is watched. Either way the caller holds
   * the only reference.
   */
  decodeWritten(key: string, encoded: EncodedObject, revision: number): KubeObject {
    const source = encoded.source;
    if (encoded.handedOver && source) {
      // The caller's own object comes back; a watch event still to come gets a copy (or it too).
      source.metadata.resourceVersion = String(revision);
      if (this.watches > 0 && this.recentWrites.awaitsEvent(key, encoded.stored))
        this.recentWrites.keepForEvent(key, encoded.stored, this.handedOverForEvent(key, encoded.data, source, encoded.handedOver, revision), revision);
      return source;
    }
    const kept = this.recentWrites.takeDecoded(key, encoded.stored, revision);
    if (kept) return kept;
    const object = this.readBack(key, encoded.data, encoded.source, revision);
    if (this.watches > 0) this.recentWrites.keepForEvent(key, encoded.stored, deepCopy(object), revision);
    return object;
  }

  /** The watch event's object of a handed-over write: a copy of `source`, or with `share` `source` itself. */
  private handedOverForEvent(key: string, data: Uint8Array, source: KubeObject, handOver: HandOver, revision: number): KubeObject {
    if (handOver === 'copy') return this.readBack(key, data, source, revision);
    source.metadata.resourceVersion = String(revision);
    return source;
  }

  /**
   * The object a write of `data` reads back at `resourceVersion`: a JSON-faithful copy of `source` (the
   * object the codec encoded verbatim into `data`) when there is one it can copy, else a parse of `data`.
   */
  private readBack(key: string, data: Uint8Array, source: KubeObject | undefined, resourceVersion: number): KubeObject {
    const copied = source === undefined ? undefined : jsonCopy(source);
    if (copied === undefined) return this.decodePlain(key, data, resourceVersion);
    copied.metadata.resourceVersion = String(resourceVersion);
    return copied;
  }

  /** Decodes plain codec bytes and stamps the resourceVersion. */
  decodePlain(key: string, data: Uint8Array, resourceVersion: number): KubeObject {
    let object: KubeObject;
    try {
      object = this.codec.decode(data);
    } catch (error) {
      throw StorageError.corruptObject(key, `unable to decode object at key "${key}": ${messageOf(error)}`, error);
    }
    if (typeof object !== 'object' || object === null || typeof object.metadata !== 'object' || object.metadata === null) {
      throw StorageError.corruptObject(key, `unable to decode object at key "${key}": missing metadata`);
    }
    object.metadata.resourceVersion = String(resourceVersion);
    return object;
  }
}

/**
 * `object` with `metadata.resourceVersion` left out: `object` itself when it has none (a create's),
 * else a shallow copy (members are shared).
 */
function withoutResourceVersion(object: KubeObject): KubeObject {
  const current = object.metadata as KubeObject['metadata'] | undefined;
  if (current && !Object.hasOwn(current, 'resourceVersion')) return object;
  const { resourceVersion: _ignored, ...metadata } = current ?? {};
  return { ...object, metadata };
}

/**
 * Parses a resourceVersion string: "" gives 0. Anything but an unsigned integer is a 400 worded like
 * Kubernetes: `invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax`.
 */
export function parseResourceVersion(resourceVersion: string | undefined): number {
  if (resourceVersion === undefined || resourceVersion === '') return 0;
  let problem: string | undefined;
  if (!/^\d+$/.test(resourceVersion)) problem = 'invalid syntax';
  else if (!Number.isSafeInteger(Number(resourceVersion))) problem = 'value out of range';
  if (problem) {
    const quoted = JSON.stringify(resourceVersion);
    throw StatusError.badRequest(
      `invalid resource version: resourceVersion: Invalid value: ${quoted}: strconv.ParseUint: parsing ${quoted}: ${problem}`,
    );
  }
  return Number(resourceVersion);
}

/** Byte equality. */
export function bytesEqual(left: Uint8Array, right: Uint8Array): boolean {
  if (left.byteLength !== right.byteLength) return false;
  return Buffer.from(left.buffer, left.byteOffset, left.byteLength).equals(right);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True for a {@link RevisionCompactedError}, also from another copy of this package. */
export function isRevisionCompacted(error: unknown): error is RevisionCompactedError {
  return error instanceof RevisionCompactedError || (error instanceof Error && error.name === 'RevisionCompactedError');
}

/** True for a {@link FutureRevisionError}, also from another copy of this package. */
export function isFutureRevision(error: unknown): error is FutureRevisionError {
  return error instanceof FutureRevisionError || (error instanceof Error && error.name === 'FutureRevisionError');
}
