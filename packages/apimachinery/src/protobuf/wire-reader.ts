/**
 * A minimal protobuf wire-format reader: varints, 64-bit, length-delimited and 32-bit fields.
 * It throws `ProtobufWireError` on truncated or malformed input; callers turn that into a 400.
 */

/** Protobuf wire types. Groups (3, 4) are obsolete and rejected. */
export const WireType = {
  varint: 0,
  fixed64: 1,
  lengthDelimited: 2,
  fixed32: 5,
} as const;

/** Raised for input that is not well-formed protobuf. */
export class ProtobufWireError extends Error {
  override readonly name = 'ProtobufWireError';
}

/** One field key: field number and wire type. */
export interface ProtobufFieldTag {
  fieldNumber: number;
  wireType: number;
}

const textDecoder = new TextDecoder('utf-8');

/** Sequential reader over one message's bytes. */
export class WireReader {
  private position = 0;

  constructor(private readonly bytes: Uint8Array) {}

  /** True when every byte has been consumed. */
  get done(): boolean {
    return this.position >= this.bytes.length;
  }

  /** Reads a field key. */
  readTag(): ProtobufFieldTag {
    const key = this.readVarint();
    const fieldNumber = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (fieldNumber === 0) throw new ProtobufWireError(`invalid field number 0 at offset ${this.position}`);
    return { fieldNumber, wireType };
  }

  /** Reads a base-128 varint as an unsigned 64-bit value. */
  readVarint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let index = 0; index < 10; index++) {
      if (this.position >= this.bytes.length) throw new ProtobufWireError('unexpected end of data in varint');
      const byte = this.bytes[this.position++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return BigInt.asUintN(64, result);
      shift += 7n;
    }
    throw new ProtobufWireError('varint is longer than 10 bytes');
  }

  /** Reads a varint as a signed 64-bit integer (int32/int64 encoding), converted to a JS number. */
  readSignedVarint(): number {
    return Number(BigInt.asIntN(64, this.readVarint()));
  }

  /** Reads 8 little-endian bytes as a signed 64-bit number. */
  readFixed64(): number {
    const view = this.take(8);
    return Number(new DataView(view.buffer, view.byteOffset, 8).getBigInt64(0, true));
  }

  /** Reads 4 little-endian bytes as a signed 32-bit number. */
  readFixed32(): number {
    const view = this.take(4);
    return new DataView(view.buffer, view.byteOffset, 4).getInt32(0, true);
  }

  /** Reads a length-delimited payload (a view, not a copy). */
  readLengthDelimited(): Uint8Array {
    const length = this.readVarint();
    if (length > BigInt(this.bytes.length - this.position)) {
      throw new ProtobufWireError(
        `length ${length} exceeds the ${this.bytes.length - this.position} remaining bytes`,
      );
    }
    return this.take(Number(length));
  }

  /** Reads a length-delimited payload as UTF-8 text. */
  readString(): string {
    return textDecoder.decode(this.readLengthDelimited());
  }

  /** Skips over a value of the given wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case WireType.varint:
        this.readVarint();
        return;
      case WireType.fixed64:
        this.take(8);
        return;
      case WireType.lengthDelimited:
        this.readLengthDelimited();
        return;
      case WireType.fixed32:
        this.take(4);
        return;
      default:
        throw new ProtobufWireError(`unsupported wire type ${wireType}`);
    }
  }

  private take(count: number): Uint8Array {
    if (this.position + count > this.bytes.length) throw new ProtobufWireError('unexpected end of data');
    const slice = this.bytes.subarray(this.position, this.position + count);
    this.position += count;
    return slice;
  }
}

/** Decodes UTF-8 bytes (shared decoder). */
export function utf8(bytes: Uint8Array): string {
  return textDecoder.decode(bytes);
}
