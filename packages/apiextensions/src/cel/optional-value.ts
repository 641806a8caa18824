import { CelScalar, celMethod, isCelMap, type CelFunc, type CelInput } from '@bufbuild/cel';

/** Key marking a map as an optional value (the CEL implementation has no optional type of its own). */
const marker = '\u0000optional';

/**
 * `oldSelf` of an `optionalOldSelf` rule: an optional holding the old value, or none on create. Rules read it
 * with `hasValue()`, `value()` and `orValue(default)` as upstream.
 */
export function optionalOf(value: CelInput | undefined): CelInput {
  return value === undefined ? { [marker]: true } : { [marker]: true, value };
}

/** `hasValue()`, `value()` and `orValue()` over `optionalOf` values. */
export const optionalMethods: CelFunc[] = [
  celMethod('hasValue', CelScalar.DYN, [], CelScalar.BOOL, function () {
    return isCelMap(this) && this.has(marker) && this.has('value');
  }),
  celMethod('value', CelScalar.DYN, [], CelScalar.DYN, function () {
    const held = isCelMap(this) && this.has(marker) ? this.get('value') : undefined;
    if (held === undefined) throw new Error('optional.none() dereference');
    return held;
  }),
  celMethod('orValue', CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (fallback) {
    return (isCelMap(this) && this.has(marker) ? this.get('value') : undefined) ?? fallback;
  }),
];
