/** How many keys {@link RecentWrites} remembers (enough for the writes whose watch events are on their way). */
const defaultCapacity = 1024;

/**
 * The plain bytes of the last values a store wrote through a transformer (encryption), or with a codec
 * that recognises its own encodings, by key: the watch event of a store's own write then reads them here
 * instead of decrypting what it has just encrypted (and as the very buffer the codec encoded).
 * A value is recognised by its exact stored bytes, so a later write of the key by anyone else misses.
 * Bounded: the oldest keys are forgotten first.
 */
export class RecentWrites {
  private readonly entries = new Map<string, { stored: Uint8Array; data: Uint8Array }>();

  constructor(private readonly capacity = defaultCapacity) {}

  /** Records that `stored` (the transformed value of `data`) was written at `key`. */
  remember(key: string, stored: Uint8Array, data: Uint8Array): void {
    this.entries.delete(key);
    this.entries.set(key, { stored, data });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /** The plain bytes of `stored` when it is the value last written at `key` by this store. */
  plainOf(key: string, stored: Uint8Array): Uint8Array | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.stored.byteLength !== stored.byteLength) return undefined;
    return Buffer.from(entry.stored.buffer, entry.stored.byteOffset, entry.stored.byteLength).equals(stored) ? entry.data : undefined;
  }
}
