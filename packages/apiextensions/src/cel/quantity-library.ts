import { CelScalar, celFunc, celMethod, type CelFunc, type CelValue } from '@bufbuild/cel';
import { opaqueValue, requireOpaque } from './opaque-value.js';

const { DYN, STRING, BOOL, INT, DOUBLE } = CelScalar;

/** A quantity as an exact fraction (`numerator / denominator`, reduced). */
interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

const FORMAT = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const formatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const binarySuffixes: Record<string, bigint> = { Ki: 1n, Mi: 2n, Gi: 3n, Ti: 4n, Pi: 5n, Ei: 6n };
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a < 0n ? -a : a, b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

function fraction(numerator: bigint, denominator: bigint): Fraction {
  const divisor = gcd(numerator, denominator);
  return { numerator: numerator / divisor, denominator: denominator / divisor };
}

/** Parses a resource.Quantity (`500m`, `1.5Gi`, `1e3`); throws upstream's format error. */
function parseQuantity(text: string): Fraction {
  const match = FORMAT.exec(text.trim());
  const digits = match?.[1] ?? '';
  const suffix = match?.[2] ?? '';
  if (!match || !/^[+-]?(\d+\.?\d*|\.\d+)$/.test(digits)) throw new Error(formatError);
  const negative = digits.startsWith('-');
  const [whole = '', decimals = ''] = digits.replace(/^[+-]/, '').split('.');
  let value = fraction(BigInt(`${whole}${decimals}` || '0') * (negative ? -1n : 1n), 10n ** BigInt(decimals.length));
  const binary = binarySuffixes[suffix];
  const decimal = decimalSuffixes[suffix];
  let exponent = 0;
  if (binary !== undefined) value = fraction(value.numerator * 1024n ** binary, value.denominator);
  else if (decimal !== undefined) exponent = decimal;
  else if (/^[eE][-+]?\d+$/.test(suffix)) exponent = Number(suffix.slice(1));
  else throw new Error('unable to parse quantity\'s suffix');
  if (exponent > 0) value = fraction(value.numerator * 10n ** BigInt(exponent), value.denominator);
  if (exponent < 0) value = fraction(value.numerator, value.denominator * 10n ** BigInt(-exponent));
  return value;
}

const toValue = (q: Fraction) => opaqueValue('quantity', `${q.numerator}/${q.denominator}`);

function fromValue(value: CelValue, operation: string): Fraction {
  const [numerator = '0', denominator = '1'] = requireOpaque('quantity', value, operation).split('/');
  return { numerator: BigInt(numerator), denominator: BigInt(denominator) };
}

/** A quantity or an int argument (`add`, `sub`). */
function operand(value: CelValue, operation: string): Fraction {
  return typeof value === 'bigint' ? { numerator: value, denominator: 1n } : fromValue(value, operation);
}

function compare(left: Fraction, right: Fraction): number {
  const difference = left.numerator * right.denominator - right.numerator * left.denominator;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

const isInt64 = (q: Fraction) => q.denominator === 1n && q.numerator >= MIN_INT64 && q.numerator <= MAX_INT64;

/** Kubernetes' Quantity CEL library. */
export const quantityLibrary: CelFunc[] = [
  celFunc('quantity', [STRING], DYN, (text) => toValue(parseQuantity(text))),
  celFunc('isQuantity', [STRING], BOOL, (text) => {
    try {
      parseQuantity(text);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('sign', DYN, [], INT, function () {
    return BigInt(compare(fromValue(this, 'sign'), { numerator: 0n, denominator: 1n }));
  }),
  celMethod('isInteger', DYN, [], BOOL, function () {
    return isInt64(fromValue(this, 'isInteger'));
  }),
  celMethod('asInteger', DYN, [], INT, function () {
    const q = fromValue(this, 'asInteger');
    if (!isInt64(q)) throw new Error('cannot convert value to integer');
    return q.numerator;
  }),
  celMethod('asApproximateFloat', DYN, [], DOUBLE, function () {
    const q = fromValue(this, 'asApproximateFloat');
    return Number(q.numerator) / Number(q.denominator);
  }),
  celMethod('add', DYN, [DYN], DYN, function (other) {
    const [a, b] = [fromValue(this, 'add'), operand(other, 'add')];
    return toValue(fraction(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator));
  }),
  celMethod('sub', DYN, [DYN], DYN, function (other) {
    const [a, b] = [fromValue(this, 'sub'), operand(other, 'sub')];
    return toValue(fraction(a.numerator * b.denominator - b.numerator * a.denominator, a.denominator * b.denominator));
  }),
  celMethod('isLessThan', DYN, [DYN], BOOL, function (other) {
    return compare(fromValue(this, 'isLessThan'), fromValue(other, 'isLessThan')) < 0;
  }),
  celMethod('isGreaterThan', DYN, [DYN], BOOL, function (other) {
    return compare(fromValue(this, 'isGreaterThan'), fromValue(other, 'isGreaterThan')) > 0;
  }),
  celMethod('compareTo', DYN, [DYN], INT, function (other) {
    return BigInt(compare(fromValue(this, 'compareTo'), fromValue(other, 'compareTo')));
  }),
];
