import type { KVEntry } from '@kapi/storage';
import type { IKeyValue } from 'etcd3';

const EMPTY = new Uint8Array(0);

/** The exclusive etcd range end of all keys that start with `prefix` (clientv3 GetPrefixRangeEnd). */
export function prefixRangeEndBytes(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let index = end.length - 1; index >= 0; index--) {
    if (end[index]! < 0xff) {
      end[index] = end[index]! + 1;
      return end.subarray(0, index + 1);
    }
  }
  // Every byte is 0xff (or the prefix is empty): range to the end of the keyspace.
  return Buffer.from([0]);
}

/** Views `value` as a Buffer without copying. */
export function asBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** Translates between storage keys and etcd keys under an optional fixed prefix. */
export class KeyCodec {
  private readonly prefixBytes: Buffer;

  constructor(readonly prefix: string) {
    this.prefixBytes = Buffer.from(prefix, 'utf8');
  }

  /** The etcd key of a storage key. */
  encode(key: string): Buffer {
    return Buffer.from(this.prefix + key, 'utf8');
  }

  /** The storage key of an etcd key. */
  decode(key: Buffer): string {
    const bytes = this.prefixBytes.length > 0 ? key.subarray(this.prefixBytes.length) : key;
    return bytes.toString('utf8');
  }

  /** A stored entry from an etcd key-value. */
  entry(kv: IKeyValue): KVEntry {
    return {
      key: this.decode(kv.key),
      value: kv.value ?? EMPTY,
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
    };
  }
}
