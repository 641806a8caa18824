import type { TransformContext, TransformedValue, ValueTransformer } from '../codec.js';

/** A transformer and the prefix that marks the values it wrote. */
export interface PrefixedTransformer {
  /** E.g. `k8s:enc:aescbc:v1:key1:`; empty for the identity provider (matches every value). */
  prefix: string;
  /** Reads and writes the bytes after the prefix. */
  transformer: ValueTransformer;
  /** `prefix` followed by `transformer.toStorage(data)`, written into one buffer (no copy of the output). */
  toStorageAfter?(prefix: Uint8Array, data: Uint8Array, context: TransformContext): Uint8Array;
}

const encryptedMarker = Buffer.from('k8s:enc:');

/**
 * k8s.io/apiserver's prefix transformer: the first entry writes (its prefix, then its output); a read
 * uses the first entry whose prefix the value starts with, and is stale when that is not the first
 * entry (an old key or provider), so guaranteedUpdate rewrites it with the current one. An entry with
 * an empty prefix (identity) that fails to read passes the value on to the next entries.
 */
export function prefixTransformer(entries: readonly PrefixedTransformer[]): ValueTransformer {
  const first = entries[0];
  if (!first) throw new Error('prefix transformer: at least one transformer is required');
  const prefixes = entries.map((entry) => Buffer.from(entry.prefix));
  const writerPrefix = prefixes[0] as Buffer;
  return {
    toStorage(data: Uint8Array, context: TransformContext): Uint8Array {
      if (first.toStorageAfter) return first.toStorageAfter(writerPrefix, data, context);
      return Buffer.concat([writerPrefix, first.transformer.toStorage(data, context)]);
    },
    fromStorage(data: Uint8Array, context: TransformContext): TransformedValue {
      const value = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      for (const [index, entry] of entries.entries()) {
        const prefix = prefixes[index] as Buffer;
        if (!startsWith(value, prefix)) continue;
        let read: TransformedValue;
        try {
          read = entry.transformer.fromStorage(value.subarray(prefix.byteLength), context);
        } catch (error) {
          // identity listed before the encryption providers (decrypting everything): encrypted values go on.
          if (prefix.byteLength === 0) continue;
          throw error;
        }
        return { data: read.data, stale: index !== 0 || read.stale };
      }
      throw new Error('no matching prefix found');
    },
    readsStale(data: Uint8Array): boolean {
      const value = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      if (startsWith(value, writerPrefix)) return first.transformer.readsStale?.(value.subarray(writerPrefix.byteLength)) ?? false;
      // Another entry's own prefix (an older key or provider); identity only for values not marked encrypted.
      return prefixes.some((prefix, index) => index > 0 && (prefix.byteLength > 0 ? startsWith(value, prefix) : !startsWith(value, encryptedMarker)));
    },
  };
}

/** The `identity` provider: stores plain bytes, and refuses to read encrypted data as plain. */
export const identityProviderTransformer: ValueTransformer = {
  toStorage: (data) => data,
  fromStorage(data) {
    if (startsWith(Buffer.from(data.buffer, data.byteOffset, data.byteLength), encryptedMarker)) {
      throw new Error('identity transformer tried to read encrypted data');
    }
    return { data, stale: false };
  },
};

/** `value` starts with `prefix`. */
export function startsWith(value: Buffer, prefix: Buffer): boolean {
  return value.byteLength >= prefix.byteLength && value.subarray(0, prefix.byteLength).equals(prefix);
}
