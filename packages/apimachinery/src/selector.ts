/**
 * The shape of a parsed label or field selector. Parsers (`parseLabelSelector`, `parseFieldSelector`)
 * return objects of this shape.
 */
export interface Selector {
  /** True when the given key/value set satisfies every requirement. */
  matches(values: Readonly<Record<string, string>>): boolean;
  /** True when the selector has no requirements (matches everything). */
  empty(): boolean;
  /** The canonical string form (what `?labelSelector=` would carry). */
  toString(): string;
  /** For a field selector: the value the selector requires `field` to equal, if it pins one. */
  requiresExactMatch?(field: string): string | undefined;
}
