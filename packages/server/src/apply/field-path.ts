/**
 * Path elements of field sets (structured-merge-diff `fieldpath.PathElement`), each held as the text
 * fieldsV1 uses for it: `f:<name>` (struct field or map key), `k:<json>` (list-map item, keys sorted),
 * `v:<json>` (set item), `i:<n>` (list index).
 */
export type PathElement = string;

/** A path from the object root. */
export type FieldPath = readonly PathElement[];

/** The element of a struct field or map key. */
export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** The element of a list-map item from its key fields (sorted by name, as fieldsV1 writes them). */
export function keyElement(fields: ReadonlyArray<readonly [string, unknown]>): PathElement {
  const sorted = [...fields].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `k:{${sorted.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}}`;
}

/** The element of a set item. */
export function valueElement(value: unknown): PathElement {
  return `v:${JSON.stringify(value)}`;
}

/** The element of a list index. */
export function indexElement(index: number): PathElement {
  return `i:${index}`;
}

/** True when `text` is a well-formed element (used when parsing fieldsV1). */
export function isPathElement(text: string): boolean {
  const kind = text.slice(0, 2);
  const rest = text.slice(2);
  if (kind === 'f:') return true;
  if (kind === 'i:') return /^\d+$/.test(rest);
  if (kind !== 'k:' && kind !== 'v:') return false;
  try {
    const value = JSON.parse(rest) as unknown;
    return kind === 'v:' || (typeof value === 'object' && value !== null && !Array.isArray(value));
  } catch {
    return false;
  }
}

function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  if (typeof value === 'boolean') return 3;
  if (Array.isArray(value)) return 4;
  return 5;
}

/** Order of two strings by UTF-16 code units. */
export function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A total order over JSON values (type first, then value), as structured-merge-diff's value.Compare. */
export function compareValues(left: unknown, right: unknown): number {
  const rank = typeRank(left) - typeRank(right);
  if (rank !== 0) return rank;
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  if (typeof left === 'string' && typeof right === 'string') return compareStrings(left, right);
  if (typeof left === 'boolean' && typeof right === 'boolean') return Number(left) - Number(right);
  if (Array.isArray(left) && Array.isArray(right)) {
    for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
      const order = compareValues(left[index], right[index]);
      if (order !== 0) return order;
    }
    return left.length - right.length;
  }
  if (typeof left === 'object' && left !== null && typeof right === 'object' && right !== null) {
    const leftEntries = Object.entries(left).sort(([a], [b]) => compareStrings(a, b));
    const rightEntries = Object.entries(right).sort(([a], [b]) => compareStrings(a, b));
    for (let index = 0; index < Math.min(leftEntries.length, rightEntries.length); index += 1) {
      const [leftName, leftValue] = leftEntries[index] as [string, unknown];
      const [rightName, rightValue] = rightEntries[index] as [string, unknown];
      const order = compareStrings(leftName, rightName) || compareValues(leftValue, rightValue);
      if (order !== 0) return order;
    }
    return leftEntries.length - rightEntries.length;
  }
  return 0;
}

/** The rank of an element's kind in sibling order, from its first character: f < k < v < i. */
function kindOrder(element: PathElement): number {
  switch (element.charCodeAt(0)) {
    case 102: // f
      return 0;
    case 107: // k
      return 1;
    case 118: // v
      return 2;
    case 105: // i
      return 3;
    default:
      return 4;
  }
}

/** Sibling order of `PathElement.Compare`: field < key < value < index, then within each kind. */
export function compareElements(left: PathElement, right: PathElement): number {
  const leftKind = kindOrder(left);
  const rightKind = kindOrder(right);
  if (leftKind !== rightKind) return leftKind - rightKind;
  // Fields: same two-character prefix, so the whole strings order as their names do.
  if (leftKind === 0) return compareStrings(left, right);
  if (leftKind === 3) return Number(left.slice(2)) - Number(right.slice(2));
  return compareValues(JSON.parse(left.slice(2)), JSON.parse(right.slice(2)));
}

/** The text of one element in conflict messages: `.f`, `[name="nginx"]`, `[="v"]`, `[3]`. */
export function elementText(element: PathElement): string {
  const rest = element.slice(2);
  switch (element.slice(0, 2)) {
    case 'f:':
      return `.${rest}`;
    case 'k:': {
      const fields = JSON.parse(rest) as Record<string, unknown>;
      return `[${Object.entries(fields)
        .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
        .join(',')}]`;
    }
    case 'v:':
      return `[=${rest}]`;
    default:
      return `[${rest}]`;
  }
}

/** The text of a path in conflict messages and errors, e.g. `.spec.containers[name="nginx"].image`. */
export function pathText(path: FieldPath): string {
  return path.map(elementText).join('');
}
