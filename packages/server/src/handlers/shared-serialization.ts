/**
 * Encodings already made of shared objects, per object and encoding key. A watch cache hands the same
 * (read-only) object to every watcher and to every GET it serves, so each encoding is made (and UTF-8
 * encoded) once and the same Buffer is written to every socket. An object that is not shared (a fresh
 * read from storage) simply gets an entry that is collected with it.
 */
const serializations = new WeakMap<object, Map<string, Buffer>>();

/** `encode()` of `object` as a Buffer, made once per object and `key`. */
export function sharedSerialization(object: object, key: string, encode: () => string): Buffer {
  let byKey = serializations.get(object);
  if (!byKey) {
    byKey = new Map();
    serializations.set(object, byKey);
  }
  let encoded = byKey.get(key);
  if (encoded === undefined) {
    encoded = Buffer.from(encode());
    byKey.set(key, encoded);
  }
  return encoded;
}
