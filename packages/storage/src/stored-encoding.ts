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
 * an update's response, written right after the write. Read once: the bytes are forgotten as they are
 * handed out, so an object the store shares with its watch cache (CreateOptions.shareResult) does not
 * keep them as long as it lives.
 */
export function storedEncodingOf(object: object): Uint8Array | undefined {
  const data = encodings.get(object);
  if (data !== undefined) encodings.delete(object);
  return data;
}
