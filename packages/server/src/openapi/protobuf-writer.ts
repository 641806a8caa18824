/**
 * The protobuf wire format, write side: each function returns one encoded field, and {@link fields}
 * joins them into a message body. Zero values are written by the caller's choice (proto3 leaves them out).
 */

function varintBytes(value: number): number[] {
  const bytes: number[] = [];
  let rest = BigInt(Math.trunc(value));
  if (rest < 0n) rest += 1n << 64n;
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return bytes;
}

function tag(field: number, wireType: 0 | 1 | 2): number[] {
  return varintBytes(field * 8 + wireType);
}

/** A varint field (int32, int64, bool, enum). */
export function varintField(field: number, value: number | boolean): Buffer {
  return Buffer.from([...tag(field, 0), ...varintBytes(typeof value === 'boolean' ? Number(value) : value)]);
}

/** A `double` field (64-bit, little-endian). */
export function doubleField(field: number, value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleLE(value);
  return Buffer.concat([Buffer.from(tag(field, 1)), bytes]);
}

/** A length-delimited field: bytes, an embedded message's body, or a string (UTF-8). */
export function bytesField(field: number, value: Uint8Array | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([Buffer.from([...tag(field, 2), ...varintBytes(bytes.length)]), bytes]);
}

/** A message body from its encoded fields, skipping absent ones. */
export function fields(...encoded: Array<Buffer | readonly Buffer[] | undefined>): Buffer {
  return Buffer.concat(encoded.flatMap((item) => (item === undefined ? [] : Array.isArray(item) ? item : [item as Buffer])));
}
