/** Thrown (and caught by {@link jsonCopy}) on a value the copy does not make the way JSON would. */
const notPlain: unique symbol = Symbol('not plain JSON');

/**
 * What `JSON.parse(JSON.stringify(value))` returns for plain data, made without the text: plain objects
 * and arrays are copied member by member (strings are shared, not re-read), members JSON leaves out
 * (`undefined`, functions, symbols) are left out, and in arrays they become `null`, as do non-finite
 * numbers; `-0` becomes `0`. Undefined when `value` holds anything else (an object with `toJSON` such as
 * a Date, a class instance, a Map, a bigint): the caller then parses the JSON.
 *
 * A write's read-back with it is several times cheaper than parsing the bytes written (~0.4 vs ~2.5 µs
 * for a 2 KB ConfigMap, hot; more on a busy server), and it allocates no text.
 */
export function jsonCopy<T>(value: T): T | undefined {
  try {
    return copy(value) as T;
  } catch (error) {
    if (error === notPlain) return undefined;
    throw error;
  }
}

function copy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'object':
      break;
    default:
      // JSON.stringify throws on a bigint; undefined, functions and symbols are members to leave out, which
      // the callers below handle before getting here. A top-level one has no JSON at all.
      throw notPlain;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const length = value.length;
    const items = new Array<unknown>(length);
    for (let index = 0; index < length; index++) {
      const item: unknown = value[index];
      items[index] = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : copy(item);
    }
    return items;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw notPlain;
  const result: Record<string, unknown> = {};
  // for-in visits own enumerable string keys in JSON.stringify's order (plain objects inherit none). A
  // toJSON method can then only be an own member, checked as the keys go by: looking up an absent
  // `toJSON` on every object (through its prototype) costs more than the copy of a small one.
  for (const key in value) {
    const member: unknown = (value as Record<string, unknown>)[key];
    if (typeof member === 'function') {
      if (key === 'toJSON') throw notPlain;
      continue;
    }
    if (member === undefined || typeof member === 'symbol') continue;
    const item = copy(member);
    // JSON.parse makes "__proto__" an own property; keep it one (assignment would set the prototype).
    if (key === '__proto__') Object.defineProperty(result, key, { value: item, enumerable: true, writable: true, configurable: true });
    else result[key] = item;
  }
  return result;
}
