import { describe, expect, it } from 'vitest';
import { KeyCodec, prefixRangeEndBytes } from './etcd-keys.js';

describe('prefixRangeEndBytes', () => {
  it('increments the last byte below 0xff and drops what follows', () => {
    expect(prefixRangeEndBytes(Buffer.from('/a/'))).toEqual(Buffer.from('/a0'));
    expect(prefixRangeEndBytes(Buffer.from([0x61, 0xff, 0xff]))).toEqual(Buffer.from([0x62]));
  });

  it('ranges to the end of the keyspace for an empty or all-0xff prefix', () => {
    expect(prefixRangeEndBytes(Buffer.alloc(0))).toEqual(Buffer.from([0]));
    expect(prefixRangeEndBytes(Buffer.from([0xff, 0xff]))).toEqual(Buffer.from([0]));
  });

  it('does not modify its argument', () => {
    const prefix = Buffer.from('/x');
    prefixRangeEndBytes(prefix);
    expect(prefix.toString()).toBe('/x');
  });
});

describe('KeyCodec', () => {
  it('adds and strips the backend prefix, including multi-byte keys', () => {
    const keys = new KeyCodec('/tenant');
    const encoded = keys.encode('/pods/ü');
    expect(encoded.toString('utf8')).toBe('/tenant/pods/ü');
    expect(keys.decode(encoded)).toBe('/pods/ü');
    expect(new KeyCodec('').decode(Buffer.from('/a'))).toBe('/a');
  });
});
