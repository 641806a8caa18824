/**
 * A tiny protobuf writer used by the decoder tests to build messages by hand (not exported from the package).
 */

/** A message under construction: a list of encoded byte chunks. */
export type Chunks = number[];

/** Encodes a varint (negative numbers as 10-byte two's complement, like int32/int64). */
export function varint(value: number | bigint): Chunks {
  let remaining = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(remaining & 0x7fn);
    remaining >>= 7n;
    if (remaining > 0n) byte |= 0x80;
    out.push(byte);
  } while (remaining > 0n);
  return out;
}

/** A field key. */
export function tag(fieldNumber: number, wireType: number): Chunks {
  return varint((fieldNumber << 3) | wireType);
}

/** A varint field. */
export function varintField(fieldNumber: number, value: number | bigint | boolean): Chunks {
  return [...tag(fieldNumber, 0), ...varint(typeof value === 'boolean' ? (value ? 1 : 0) : value)];
}

/** A length-delimited field holding `payload` (bytes or a nested message). */
export function bytesField(fieldNumber: number, payload: Chunks | Uint8Array): Chunks {
  const bytes = [...payload];
  return [...tag(fieldNumber, 2), ...varint(bytes.length), ...bytes];
}

/** A string field. */
export function stringField(fieldNumber: number, text: string): Chunks {
  return bytesField(fieldNumber, new TextEncoder().encode(text));
}

/** A map<string, V> entry field. */
export function mapEntry(fieldNumber: number, key: string, value: Chunks): Chunks {
  return bytesField(fieldNumber, [...stringField(1, key), ...value]);
}

/** Concatenates chunks into bytes. */
export function toBytes(...parts: Chunks[]): Uint8Array {
  return Uint8Array.from(parts.flat());
}

/** Wraps a message in the Kubernetes envelope (`k8s\0` + runtime.Unknown). */
export function envelope(apiVersion: string, kind: string, raw: Chunks): Uint8Array {
  const typeMeta = [...stringField(1, apiVersion), ...stringField(2, kind)];
  return toBytes(
    [0x6b, 0x38, 0x73, 0x00],
    bytesField(1, typeMeta),
    bytesField(2, raw),
    bytesField(3, []),
    bytesField(4, []),
  );
}
