import type { KubeObject } from '@kapi/apimachinery';

/** The JSON bytes objects returned by `Store.create` and `Store.guaranteedUpdate` (after a write) were decoded from, without their resourceVersion. */
const encodings = new WeakMap<object, Uint8Array>();

/** Records that `object` is the JSON parse of `data` with only `metadata.resourceVersion` set after it. */
export function rememberStoredEncoding(object: KubeObject, data: Uint8Array): void {
  encodings.set(object, data);
}

/**
 * The JSON bytes a created or updated object was decoded from (what the store wrote, before any
 * transformer), without `metadata.resourceVersion`, when its codec decodes verbatim; `undefined` for
 * anything else (a no-op update included). Valid only while the object is unmodified: for a create's or
 * an update's response, written right after the write.
 */
export function storedEncodingOf(object: object): Uint8Array | undefined {
  return encodings.get(object);
}
