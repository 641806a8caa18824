/** Objects decoded from a stored value the transformer reported stale, at a key without a TTL. */
const staleObjects = new WeakSet<object>();

/** Records that `object` was decoded from a stale value (e.g. sealed with an old encryption key) of a key without TTL. */
export function markDecodedStale(object: object): void {
  staleObjects.add(object);
}

/**
 * True when `object` was decoded from a stale stored value ({@link copyStaleMark} carries this to copies):
 * guaranteedUpdate then rewrites it, conditioned on its resourceVersion, without reading the value again.
 */
export function decodedStale(object: object): boolean {
  return staleObjects.has(object);
}

/**
 * Carries the store's mark "decoded from a stale value" from a cached object to its copy (the watch
 * cache hands guaranteedUpdate copies of what it holds), so that a no-op rewrite of a value sealed with an
 * old key is one conditional write instead of a read then a write.
 */
export function copyStaleMark(from: object, to: object): void {
  if (staleObjects.has(from)) staleObjects.add(to);
}
