import type { KubeObject } from '@kapi/apimachinery';
import type { HandOver } from './store-codec.js';

/** How many keys {@link RecentWrites} remembers (enough for the writes whose watch events are on their way). */
const defaultCapacity = 1024;

/**
 * The plain bytes of the last values a store wrote through a transformer (encryption), or with a codec
 * that recognises its own encodings, by key: the watch event of a store's own write then reads them here
 * instead of decrypting what it has just encrypted (and as the very buffer the codec encoded).
 * A value is recognised by its exact stored bytes, so a later write of the key by anyone else misses.
 * Bounded: the oldest keys are forgotten first.
 */
interface RecentWrite {
  stored: Uint8Array;
  data: Uint8Array;
  /**
   * The object decoded from `data` at `revision` that no one else holds: kept by a watch event for the
   * writer (see {@link RecentWrites.keepDecoded}), or by the writer for the event (`forEvent`, see
   * {@link RecentWrites.keepForEvent}), whichever read the bytes back first.
   */
  decoded?: { object: KubeObject; revision: number; forEvent: boolean } | undefined;
  /** Remembered only so that the writer and the watch event share one decode: forgotten once they have. */
  untilShared: boolean;
  /**
   * The object `data` is the verbatim JSON of, while the write is in flight (see
   * {@link RecentWrites.forgetSource}): a watch event arriving meanwhile copies it instead of parsing.
   */
  source?: KubeObject | undefined;
  /** The writer gave `source` to the store (see EncodedObject.handedOver). */
  handedOver?: HandOver | undefined;
  /** The write's watch event has made its own copy (of a handed-over source). */
  eventDecoded?: boolean;
}

export class RecentWrites {
  private readonly entries = new Map<string, RecentWrite>();

  constructor(private readonly capacity = defaultCapacity) {}

  /** Number of keys remembered. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Records that `stored` (the transformed value of `data`) was written at `key`. `untilShared`: only the
   * write's own read-back and watch event need it; the entry is forgotten once one has handed the other its
   * decode (it keeps no large values longer than their writes are in flight). `source`: the object `data`
   * is the verbatim JSON of, readable until {@link forgetSource}.
   */
  remember(key: string, stored: Uint8Array, data: Uint8Array, untilShared = false, source?: KubeObject, handedOver?: HandOver): void {
    this.entries.delete(key);
    this.entries.set(key, handedOver ? { stored, data, untilShared, source, handedOver } : { stored, data, untilShared, source });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /**
   * Keeps `object`, decoded from the plain bytes of `stored` (the value last written at `key`) at
   * `revision`, for {@link takeDecoded}: the writer's own decode of those bytes after its write then
   * takes it instead of parsing them again. The caller hands `object` over (it keeps a copy, if any).
   */
  keepDecoded(key: string, stored: Uint8Array, object: KubeObject, revision: number): void {
    const entry = this.entries.get(key);
    if (entry && entry.stored === stored) entry.decoded = { object, revision, forEvent: false };
  }

  /**
   * Keeps `object`, the writer's own copy of what it decoded from `stored` (the value last written at
   * `key`) at `revision`, for the watch event of that write when it comes after the writer's read-back
   * (etcd answers a txn before it sends its watch event): the event then takes it instead of parsing the
   * same bytes again. The caller hands `object` over.
   */
  keepForEvent(key: string, stored: Uint8Array, object: KubeObject, revision: number): void {
    const entry = this.entries.get(key);
    if (entry && entry.stored === stored && entry.decoded === undefined) entry.decoded = { object, revision, forEvent: true };
  }

  /** The write of `stored` at `key` has returned: its source object is no longer the store's to read. */
  forgetSource(key: string, stored: Uint8Array): void {
    const entry = this.entries.get(key);
    if (entry && entry.stored === stored) entry.source = undefined;
  }

  /** An object kept by {@link keepDecoded} for exactly these stored bytes and revision (handed over: once). */
  takeDecoded(key: string, stored: Uint8Array, revision: number): KubeObject | undefined {
    const entry = this.entries.get(key);
    const decoded = entry?.decoded;
    if (!entry || !decoded || decoded.forEvent || entry.stored !== stored || decoded.revision !== revision) return undefined;
    this.shared(key, entry);
    return decoded.object;
  }

  /** An object kept by {@link keepForEvent} in `entry` (of `key`) for `revision` (handed over: once). */
  takeForEvent(key: string, entry: RecentWrite, revision: number): KubeObject | undefined {
    const decoded = entry.decoded;
    if (!decoded || !decoded.forEvent || decoded.revision !== revision) return undefined;
    this.shared(key, entry);
    return decoded.object;
  }

  /** The watch event of `entry` (of `key`) has copied the handed-over source: the writer need keep nothing for it. */
  eventDecoded(key: string, entry: RecentWrite): void {
    entry.eventDecoded = true;
    entry.source = undefined;
    this.shared(key, entry);
  }

  /** Whether the watch event of the write of `stored` at `key` may still come and want a copy kept for it. */
  awaitsEvent(key: string, stored: Uint8Array): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.stored === stored && entry.eventDecoded !== true;
  }

  /** The writer and the event of `entry` have shared their decode. */
  private shared(key: string, entry: RecentWrite): void {
    entry.decoded = undefined;
    if (entry.untilShared && this.entries.get(key) === entry) this.entries.delete(key);
  }

  /** The entry of `key` when `stored` is the value last written there by this store. */
  entryOf(key: string, stored: Uint8Array): RecentWrite | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.stored.byteLength !== stored.byteLength) return undefined;
    return Buffer.from(entry.stored.buffer, entry.stored.byteOffset, entry.stored.byteLength).equals(stored) ? entry : undefined;
  }

  /** The plain bytes of `stored` when it is the value last written at `key` by this store. */
  plainOf(key: string, stored: Uint8Array): Uint8Array | undefined {
    return this.entryOf(key, stored)?.data;
  }
}
