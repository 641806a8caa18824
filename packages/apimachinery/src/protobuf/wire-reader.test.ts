import { describe, expect, it } from 'vitest';
import { ProtobufWireError, WireReader, WireType } from './wire-reader.js';
import { bytesField, stringField, tag, toBytes, varint } from './test-wire-writer.js';

describe('WireReader', () => {
  it('reads single and multi-byte varints', () => {
    const reader = new WireReader(toBytes(varint(1), varint(300), varint(2n ** 63n)));
    expect(reader.readVarint()).toBe(1n);
    expect(reader.readVarint()).toBe(300n);
    expect(reader.readVarint()).toBe(2n ** 63n);
    expect(reader.done).toBe(true);
  });

  it('reads negative int32/int64 values encoded as 10-byte varints', () => {
    const reader = new WireReader(toBytes(varint(-1), varint(-1234567890123)));
    expect(reader.readSignedVarint()).toBe(-1);
    expect(reader.readSignedVarint()).toBe(-1234567890123);
  });

  it('reads tags, strings and fixed-width values', () => {
    const fixed64 = [...tag(3, WireType.fixed64), 0x2a, 0, 0, 0, 0, 0, 0, 0];
    const fixed32 = [...tag(4, WireType.fixed32), 0xff, 0xff, 0xff, 0xff];
    const reader = new WireReader(toBytes(stringField(2, 'héllo'), fixed64, fixed32));
    expect(reader.readTag()).toEqual({ fieldNumber: 2, wireType: WireType.lengthDelimited });
    expect(reader.readString()).toBe('héllo');
    expect(reader.readTag()).toEqual({ fieldNumber: 3, wireType: WireType.fixed64 });
    expect(reader.readFixed64()).toBe(42);
    expect(reader.readTag()).toEqual({ fieldNumber: 4, wireType: WireType.fixed32 });
    expect(reader.readFixed32()).toBe(-1);
  });

  it('skips every supported wire type', () => {
    const bytes = toBytes(
      tag(1, WireType.varint),
      varint(99999),
      tag(2, WireType.fixed64),
      [1, 2, 3, 4, 5, 6, 7, 8],
      bytesField(3, [1, 2, 3]),
      tag(4, WireType.fixed32),
      [1, 2, 3, 4],
      stringField(5, 'end'),
    );
    const reader = new WireReader(bytes);
    for (let index = 0; index < 4; index++) reader.skip(reader.readTag().wireType);
    reader.readTag();
    expect(reader.readString()).toBe('end');
  });

  it('rejects truncated and malformed input', () => {
    expect(() => new WireReader(Uint8Array.of(0x80)).readVarint()).toThrow(ProtobufWireError);
    expect(() => new WireReader(toBytes(varint(10), [1, 2])).readLengthDelimited()).toThrow(/exceeds/);
    expect(() =>
      new WireReader(
        Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
      ).readVarint(),
    ).toThrow(/longer than 10 bytes/);
    expect(() => new WireReader(Uint8Array.of(0x00)).readTag()).toThrow(/field number 0/);
    expect(() => new WireReader(Uint8Array.of()).skip(3)).toThrow(/unsupported wire type 3/);
  });
});
