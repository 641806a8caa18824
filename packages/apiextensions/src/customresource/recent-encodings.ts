/** The bytes as a string key: latin1 maps each byte to one character, with no UTF-8 validation. */
function keyOf(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
}

/**
 * The byte contents of the most recent encodings of one kind, oldest forgotten first (bounded by count
 * and by total size): the storage decoder recognises bytes this server just wrote, by content, as the
 * store reads them back after a write and the watch delivers a copy of them.
 */
export class RecentEncodings {
  private readonly keys = new Set<string>();
  /** The very buffers added: the store's read-back of its write passes the same one (no key to build). */
  private readonly buffers = new WeakSet<Uint8Array>();
  private length = 0;

  constructor(
    private readonly maxEntries = 1024,
    private readonly maxLength = 8 << 20,
  ) {}

  add(data: Uint8Array): void {
    if (data.byteLength > this.maxLength) return;
    const key = keyOf(data);
    this.buffers.add(data);
    if (this.keys.has(key)) return;
    this.keys.add(key);
    this.length += key.length;
    for (const oldest of this.keys) {
      if (this.keys.size <= this.maxEntries && this.length <= this.maxLength) break;
      this.keys.delete(oldest);
      this.length -= oldest.length;
    }
  }

  has(data: Uint8Array): boolean {
    if (this.buffers.has(data)) return true;
    return this.keys.size > 0 && data.byteLength <= this.maxLength && this.keys.has(keyOf(data));
  }
}
