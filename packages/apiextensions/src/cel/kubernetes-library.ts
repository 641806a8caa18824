import {
  CelScalar,
  celFunc,
  celMethod,
  listType,
  type CelFunc,
  type CelList,
  type CelValue,
} from '@bufbuild/cel';
import { formatLibrary } from './format-library.js';
import { networkLibrary, networkToString } from './network-library.js';
import { quantityLibrary } from './quantity-library.js';
import { urlLibrary, urlToString } from './url-library.js';

const DYN = CelScalar.DYN;
const STRING = CelScalar.STRING;
const INT = CelScalar.INT;
const BOOL = CelScalar.BOOL;
const LIST = listType(DYN);

type Comparable = bigint | number | string | boolean;

function comparable(value: CelValue): Comparable {
  if (
    typeof value === 'bigint' ||
    typeof value === 'number' ||
    typeof value === 'string' ||
    typeof value === 'boolean'
  )
    return value;
  throw new Error(`no such overload: ${typeof value} is not comparable`);
}

function compare(left: Comparable, right: Comparable): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function items(list: CelList): Comparable[] {
  return [...list].map(comparable);
}

function extreme(list: CelList, sign: number): Comparable {
  const values = items(list);
  if (values.length === 0) throw new Error('min/max of an empty list');
  return values.reduce((best, value) => (compare(value, best) * sign > 0 ? value : best));
}

function sum(list: CelList): bigint | number {
  let total: bigint | number = 0n;
  for (const value of list) {
    if (typeof value === 'bigint' && typeof total === 'bigint') total += value;
    else if (typeof value === 'number') total = Number(total) + value;
    else throw new Error('no such overload: sum of non-numbers');
  }
  return total;
}

function equalItem(left: CelValue, right: CelValue): boolean {
  if (typeof left === typeof right) return left === right;
  return (typeof left === 'bigint' || typeof left === 'number') && Number(left) === Number(right);
}

function indexIn(list: CelList, value: CelValue, last: boolean): bigint {
  const values = [...list];
  const found = last
    ? values.findLastIndex((item) => equalItem(item, value))
    : values.findIndex((item) => equalItem(item, value));
  return BigInt(found);
}

/** Kubernetes' list library (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`). */
const lists: CelFunc[] = [
  celMethod('isSorted', LIST, [], BOOL, function () {
    const values = items(this);
    return values.every(
      (value, index) => index === 0 || compare(values[index - 1] as Comparable, value) <= 0,
    );
  }),
  celMethod('sum', LIST, [], DYN, function () {
    return sum(this);
  }),
  celMethod('min', LIST, [], DYN, function () {
    return extreme(this, -1);
  }),
  celMethod('max', LIST, [], DYN, function () {
    return extreme(this, 1);
  }),
  celMethod('indexOf', LIST, [DYN], INT, function (value) {
    return indexIn(this, value, false);
  }),
  celMethod('lastIndexOf', LIST, [DYN], INT, function (value) {
    return indexIn(this, value, true);
  }),
];

/** Kubernetes' regex library (`find`, `findAll`). */
const regex: CelFunc[] = [
  celMethod('find', STRING, [STRING], STRING, function (pattern) {
    return new RegExp(pattern, 'u').exec(this)?.[0] ?? '';
  }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (pattern) {
    return [...this.matchAll(new RegExp(pattern, 'gu'))].map((match) => match[0]);
  }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (pattern, limit) {
    const all = [...this.matchAll(new RegExp(pattern, 'gu'))].map((match) => match[0]);
    return limit < 0n ? all : all.slice(0, Number(limit));
  }),
];

/** `string()` of the library types (IP, CIDR, URL). */
const toStringConversion = celFunc('string', [DYN], STRING, (value) => {
  const text = networkToString(value) ?? urlToString(value);
  if (text === undefined) throw new Error('no such overload: string');
  return text;
});

/** The Kubernetes CEL libraries this package provides beyond the CEL standard and strings extension. */
export const kubernetesLibrary: CelFunc[] = [
  ...lists,
  ...regex,
  ...networkLibrary,
  ...quantityLibrary,
  ...urlLibrary,
  ...formatLibrary,
  toStringConversion,
];
