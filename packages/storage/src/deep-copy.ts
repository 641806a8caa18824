/**
 * A deep copy of a decoded object (guaranteedUpdate's tryUpdate, the REST store's working copies): plain
 * objects and arrays are copied member by member (several times faster than structuredClone, which
 * serializes: ~20 µs of a migration's 2 KB rewrite), anything else (a Date, a typed array, a Map) by
 * structuredClone.
 */
export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyValue);
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  // for-in, not Object.keys: no array of keys per copied object (decoded objects have no inherited enumerable keys).
  for (const key in value) {
    const item = copyValue((value as Record<string, unknown>)[key]);
    // JSON.parse makes "__proto__" an own property; keep it one (assignment would set the prototype).
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}
