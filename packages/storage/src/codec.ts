import type { KubeObject } from '@kapi/apimachinery';

/**
 * Turns objects into stored bytes and back. The scheme supplies one per resource (encode to the storage
 * version, decode any decodable version). The store clears `metadata.resourceVersion` before encoding.
 */
export interface Codec {
  encode(object: KubeObject): Uint8Array;
  /** Throws on bytes it cannot decode; the store reports that as CorruptObject. */
  decode(data: Uint8Array): KubeObject;
  /**
   * True when `decode` of what `encode` writes now is exactly the JSON parse of those bytes (no
   * conversion, pruning or defaulting on read): the store then lets a create's response reuse the
   * bytes it wrote ({@link storedEncodingOf}). Absent means false.
   */
  decodesVerbatim?(): boolean;
  /**
   * True when `encode(object)` writes exactly `JSON.stringify(object)` and `decode` of those bytes is
   * exactly their JSON parse (no conversion either way): the store then makes the write's read-back (the
   * object a create or update returns, and its watch event) as a JSON-faithful copy of `object`
   * instead of parsing the bytes it has just written. Absent means false.
   */
  encodesVerbatim?(object: KubeObject): boolean;
  /**
   * True when the codec recognises the buffers its `encode` returned (e.g. a custom resource codec, which
   * need not prune and default again what it has just normalized): the store then decodes its own recent
   * writes (the read-back, the watch event, a GET soon after) from that very buffer rather than from the
   * backend's copy of the bytes. Absent means false.
   */
  readonly recognizesOwnEncodings?: boolean;
}

/** JSON codec with no version conversion. */
export const jsonCodec: Codec = {
  encode(object) {
    return Buffer.from(JSON.stringify(object));
  },
  decode(data) {
    const value: unknown = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
    if (typeof value !== 'object' || value === null || typeof (value as KubeObject).metadata !== 'object') {
      throw new Error('stored value is not a Kubernetes object');
    }
    return value as KubeObject;
  },
  decodesVerbatim: () => true,
  encodesVerbatim: () => true,
};

/** Context of a value transformation: the storage key is authenticated data for encryption. */
export interface TransformContext {
  key: string;
}

/** What a transformer reads back: the plain bytes, and whether they should be rewritten (e.g. old key). */
export interface TransformedValue {
  data: Uint8Array;
  stale: boolean;
}

/** The hook between codec and backend (encryption at rest). */
export interface ValueTransformer {
  fromStorage(data: Uint8Array, context: TransformContext): TransformedValue;
  toStorage(data: Uint8Array, context: TransformContext): Uint8Array;
  /**
   * True when `fromStorage(data)` would report the value stale, decided from its prefix alone (no
   * decryption): it was written with a key or provider that no longer writes. False or absent: not known
   * without reading it.
   */
  readsStale?(data: Uint8Array): boolean;
}

/** Stores bytes unchanged. */
export const identityTransformer: ValueTransformer = {
  fromStorage: (data) => ({ data, stale: false }),
  toStorage: (data) => data,
};
