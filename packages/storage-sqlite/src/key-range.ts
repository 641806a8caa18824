/**
 * Keys are stored as BLOBs holding their UTF-8 bytes, so SQLite compares them with memcmp: the key
 * order is the byte order of the UTF-8 encoding, as in etcd. A range is the half-open byte interval
 * `[start, end)`.
 */
export interface KeyRange {
  start: Buffer;
  end: Buffer;
}

/** Greater than every UTF-8 encoded key: 0xFF never occurs in UTF-8. */
const afterAllKeys = Buffer.from([0xff]);

/** The UTF-8 bytes of a key. */
export function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8');
}

/** The smallest byte string greater than every string that starts with `prefix` (all keys for an empty prefix). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let index = end.length - 1; index >= 0; index--) {
    const byte = end[index] as number;
    if (byte < 0xff) {
      end[index] = byte + 1;
      return end.subarray(0, index + 1);
    }
  }
  return afterAllKeys;
}

/** The range of one exact key: `[key, key + 0x00)`. */
function exactRange(key: Buffer): KeyRange {
  return { start: key, end: Buffer.concat([key, Buffer.from([0])]) };
}

/**
 * The byte range a read covers: the key or prefix, narrowed to start at `startKey` when given.
 * The result may be empty (`start >= end`).
 */
export function rangeOf(key: string, prefix: boolean, startKey?: string): KeyRange {
  const bytes = keyBytes(key);
  const range = prefix ? { start: bytes, end: prefixEnd(bytes) } : exactRange(bytes);
  if (startKey !== undefined) {
    const start = keyBytes(startKey);
    if (Buffer.compare(start, range.start) > 0) range.start = start;
  }
  return range;
}

/** True when the range holds no key. */
export function isEmptyRange(range: KeyRange): boolean {
  return Buffer.compare(range.start, range.end) >= 0;
}

/** True when `key` is selected by a watch on `watchKey` (a prefix when `prefix`). */
export function keyMatches(key: string, watchKey: string, prefix: boolean): boolean {
  return prefix ? key.startsWith(watchKey) : key === watchKey;
}
