const serializations = new WeakMap<object, Map<string, unknown>>();

/**
 * Returns `encode(object)`, computed once per object and encoding. Objects delivered by the cacher's
 * watches are shared between watchers and never mutated, so a server encoding a watch event for many
 * clients can pay for the serialization once (k8s.io/apiserver's cachingObject).
 */
export function cachedSerialization<T>(object: object, encoding: string, encode: (object: object) => T): T {
  let byEncoding = serializations.get(object);
  if (!byEncoding) {
    byEncoding = new Map();
    serializations.set(object, byEncoding);
  }
  if (byEncoding.has(encoding)) return byEncoding.get(encoding) as T;
  const encoded = encode(object);
  byEncoding.set(encoding, encoded);
  return encoded;
}
