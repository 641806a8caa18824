import { celList, isCelList, isCelMap, type CelInput, type CelList, type CelValue } from '@bufbuild/cel';
import type { Expr } from './cost-estimate.js';
import { patternMatches } from './cel-environment.js';
import { jsonListItems } from './json-containers.js';
import { nativePattern } from './native-pattern.js';

/**
 * A fast evaluation of the common subset of rule expressions (field access, `has`, logic, comparisons of
 * scalars, `in`, `size`, string tests, the all/exists/exists_one/filter/map macros) over the same CEL
 * values as the interpreter, without its per-node attribute resolution. It is only trusted to say "the
 * rule holds": anything else (an error, a type it does not handle, a false result) gives up, and the
 * interpreter evaluates the rule again for the exact result and message. Expressions using anything
 * outside the subset get no fast path.
 */
export type FastRule = (bindings: Record<string, CelInput>) => boolean;

/** Thrown (not an Error: no stack to capture) when the fast path cannot vouch for the result. */
const giveUp: unique symbol = Symbol('give up');

type Value = CelValue;

/** A comprehension's variable over the rule's bindings (or an outer comprehension). */
class Scope {
  constructor(
    readonly name: string,
    public value: Value,
    public parent: Scope | Record<string, CelInput>,
  ) {}
}
type Node = (scope: Scope | Record<string, CelInput>) => Value;

/** What a reused scope's parent is between runs. */
const empty: Record<string, CelInput> = {};

const minInt = -(2n ** 63n);
const maxInt = 2n ** 63n - 1n;

function lookup(scope: Scope | Record<string, CelInput>, name: string): Value {
  let current = scope;
  while (current instanceof Scope) {
    if (current.name === name) return current.value;
    current = current.parent;
  }
  if (!Object.hasOwn(current, name)) throw giveUp;
  const value = (current as Record<string, CelInput>)[name];
  // Only values the interpreter would see unchanged: scalars and CEL maps/lists (what toCelValue builds).
  if (typeof value === 'object' ? value !== null && !isCelMap(value) && !isCelList(value) : typeof value === 'function' || value === undefined) throw giveUp;
  return value as Value;
}

function bool(value: Value): boolean {
  if (typeof value !== 'boolean') throw giveUp;
  return value;
}

/** A scalar both sides share the type of (int, double, string, bool, null); anything else gives up. */
function sameScalars(left: Value, right: Value): void {
  const type = typeof left;
  if (type !== typeof right || (type === 'object' && (left !== null || right !== null))) throw giveUp;
}

function listOf(value: Value): CelList {
  if (!isCelList(value)) throw giveUp;
  return value;
}

/** The list's items (read only), read by index: a CelList's iterator is a generator, several times slower. */
function itemsOf(list: CelList): readonly Value[] {
  const own = jsonListItems(list);
  if (own !== undefined) return own;
  const size = list.size;
  const items = new Array<Value>(size);
  for (let index = 0; index < size; index++) items[index] = list.get(index) as Value;
  return items;
}

function int(value: bigint): bigint {
  if (value < minInt || value > maxInt) throw giveUp;
  return value;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** `BigInt(n)` of small sizes, made once: a bigint is a heap object, and rules take sizes often. */
const smallInts = Array.from({ length: 256 }, (_, index) => BigInt(index));

function sizeOf(count: number): bigint {
  return smallInts[count] ?? BigInt(count);
}

function size(value: Value): bigint {
  if (typeof value === 'string') return sizeOf(codePoints(value));
  if (isCelList(value) || isCelMap(value)) return sizeOf(value.size);
  throw giveUp;
}

function plus(left: Value, right: Value): Value {
  if (typeof left === 'bigint' && typeof right === 'bigint') return int(left + right);
  if (typeof left === 'string' && typeof right === 'string') return left + right;
  if (isCelList(left) && isCelList(right)) return celList([...itemsOf(left), ...itemsOf(right)]);
  throw giveUp;
}

function compare(left: Value, right: Value): number {
  if ((typeof left === 'bigint' && typeof right === 'bigint') || (typeof left === 'number' && typeof right === 'number'))
    return left < right ? -1 : left > right ? 1 : 0;
  throw giveUp;
}

function contains(collection: Value, element: Value): boolean {
  if (isCelMap(collection)) {
    if (typeof element !== 'string') throw giveUp;
    return collection.has(element);
  }
  const list = listOf(collection);
  for (let index = 0; index < list.size; index++) {
    const item = list.get(index) as Value;
    sameScalars(item, element);
    if (item === element) return true;
  }
  return false;
}

function stringTest(name: string, target: Value, argument: Value): boolean {
  if (typeof target !== 'string' || typeof argument !== 'string') throw giveUp;
  switch (name) {
    case 'contains':
      return target.includes(argument);
    case 'startsWith':
      return target.startsWith(argument);
    case 'endsWith':
      return target.endsWith(argument);
    default: {
      // A pattern both engines read alike runs natively; the rest (and any doubt) goes to RE2.
      const native = nativePattern(argument);
      return native !== undefined ? native.test(target) : patternMatches(target, argument);
    }
  }
}

/**
 * A list literal of constants of one type (`['Exact', 'PathPrefix']`) as a set: `x in [...]` is then one
 * lookup, true exactly when comparing `x` with each item would find it (the items and `x` share a type).
 */
function scalarConstants(expr: Expr | undefined): { type: string; values: Set<Value> } | undefined {
  if (expr?.exprKind.case !== 'listExpr' || expr.exprKind.value.optionalIndices.length > 0) return undefined;
  const values = new Set<Value>();
  let type: string | undefined;
  for (const element of expr.exprKind.value.elements) {
    const constant = element.exprKind.case === 'constExpr' ? element.exprKind.value.constantKind : undefined;
    if (constant?.case !== 'stringValue' && constant?.case !== 'int64Value') return undefined;
    if (type !== undefined && type !== typeof constant.value) return undefined;
    type = typeof constant.value;
    values.add(constant.value);
  }
  return type === undefined ? undefined : { type, values };
}

type CallExpr = Extract<Expr['exprKind'], { case: 'callExpr' }>['value'];
type ComprehensionExpr = Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'];

function compileCall(call: CallExpr): Node | undefined {
  const args = call.args.map(compileNode);
  if (args.some((arg) => arg === undefined)) return undefined;
  const [a, b, c] = args as Node[];
  const target = call.target === undefined ? undefined : compileNode(call.target);
  if (call.target !== undefined && target === undefined) return undefined;
  // `name/2` for a function or operator of two arguments, `target.name/1` for a method of one.
  switch (`${target === undefined ? '' : 'target.'}${call.function}/${args.length}`) {
    case '_&&_/2':
      return (scope) => bool(a!(scope)) && bool(b!(scope));
    case '_||_/2':
      return (scope) => bool(a!(scope)) || bool(b!(scope));
    case '!_/1':
      return (scope) => !bool(a!(scope));
    case '@not_strictly_false/1':
      return (scope) => bool(a!(scope));
    case '_?_:_/3':
      return (scope) => (bool(a!(scope)) ? b!(scope) : c!(scope));
    case '_==_/2':
    case '_!=_/2': {
      const equal = call.function === '_==_';
      return (scope) => {
        const left = a!(scope);
        const right = b!(scope);
        sameScalars(left, right);
        return (left === right) === equal;
      };
    }
    case '_<_/2':
      return (scope) => compare(a!(scope), b!(scope)) < 0;
    case '_<=_/2':
      return (scope) => compare(a!(scope), b!(scope)) <= 0;
    case '_>_/2':
      return (scope) => compare(a!(scope), b!(scope)) > 0;
    case '_>=_/2':
      return (scope) => compare(a!(scope), b!(scope)) >= 0;
    case '_+_/2':
      return (scope) => plus(a!(scope), b!(scope));
    case '@in/2': {
      const constants = scalarConstants(call.args[1]);
      if (constants !== undefined)
        return (scope) => {
          const element = a!(scope);
          if (typeof element !== constants.type) throw giveUp;
          return constants.values.has(element);
        };
      return (scope) => contains(b!(scope), a!(scope));
    }
    case '_[_]/2':
      return (scope) => {
        const collection = a!(scope);
        const key = b!(scope);
        const found = isCelList(collection) && typeof key === 'bigint' ? collection.get(Number(key)) : isCelMap(collection) && typeof key === 'string' ? collection.get(key) : undefined;
        if (found === undefined) throw giveUp;
        return found;
      };
    case 'size/1':
      return (scope) => size(a!(scope));
    case 'target.size/0':
      return (scope) => size(target!(scope));
    case 'target.contains/1':
    case 'target.startsWith/1':
    case 'target.endsWith/1':
    case 'target.matches/1': {
      const name = call.function;
      return (scope) => stringTest(name, target!(scope), a!(scope));
    }
    default:
      return undefined;
  }
}

function compileComprehension(loop: ComprehensionExpr): Node | undefined {
  if ((loop as { iterVar2?: string }).iterVar2) return undefined;
  const parts = [loop.iterRange, loop.accuInit, loop.loopCondition, loop.loopStep, loop.result];
  if (parts.some((part) => part === undefined)) return undefined;
  const [range, init, condition, step, result] = parts.map((part) => compileNode(part as Expr));
  if (!range || !init || !condition || !step || !result) return undefined;
  const { iterVar, accuVar } = loop;
  // One pair of scopes for every run of this loop: no value a loop computes keeps a reference to them, and
  // evaluation is synchronous and never re-enters the same loop before it returns (an inner loop is another
  // node), so each run resets them instead of allocating its own.
  const accumulator = new Scope(accuVar, null, empty);
  const iteration = new Scope(iterVar, null, accumulator);
  return (scope) => {
    const over = range(scope);
    const items: Iterable<Value> = isCelMap(over) ? over.keys() : itemsOf(listOf(over));
    const initial = init(scope);
    accumulator.parent = scope;
    accumulator.value = initial;
    iteration.value = null;
    try {
      for (const item of items) {
        iteration.value = item;
        if (!bool(condition(iteration))) break;
        accumulator.value = step(iteration);
      }
      return result(accumulator);
    } finally {
      // Keep no value of this run alive.
      accumulator.parent = empty;
      accumulator.value = null;
      iteration.value = null;
    }
  };
}

function compileNode(expr: Expr): Node | undefined {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'constExpr': {
      const constant = kind.value.constantKind;
      if (constant.case === 'boolValue' || constant.case === 'stringValue' || constant.case === 'int64Value' || constant.case === 'doubleValue') {
        const value = constant.value;
        return () => value;
      }
      return undefined;
    }
    case 'identExpr': {
      const name = kind.value.name;
      return (scope) => lookup(scope, name);
    }
    case 'selectExpr': {
      if (kind.value.operand === undefined) return undefined;
      const operand = compileNode(kind.value.operand);
      if (operand === undefined) return undefined;
      const field = kind.value.field;
      if (kind.value.testOnly)
        return (scope) => {
          const object = operand(scope);
          if (!isCelMap(object)) throw giveUp;
          return object.has(field);
        };
      return (scope) => {
        const object = operand(scope);
        const value = isCelMap(object) ? object.get(field) : undefined;
        if (value === undefined) throw giveUp;
        return value;
      };
    }
    case 'listExpr': {
      if (kind.value.optionalIndices.length > 0) return undefined;
      const elements = kind.value.elements.map(compileNode);
      if (elements.some((element) => element === undefined)) return undefined;
      // A list of literals (`self.type in ['Exact', 'PathPrefix']`) is built once.
      if (kind.value.elements.every((element) => element.exprKind.case === 'constExpr')) {
        const constant = celList(elements.map((element) => element!({})));
        return () => constant;
      }
      return (scope) => celList(elements.map((element) => element!(scope)));
    }
    case 'callExpr':
      return compileCall(kind.value);
    case 'comprehensionExpr':
      return compileComprehension(kind.value);
    default:
      return undefined;
  }
}

/** The fast path of an expression, or undefined when it uses anything outside the subset. */
export function compileFastRule(expr: Expr): FastRule | undefined {
  const root = compileNode(expr);
  if (root === undefined) return undefined;
  return (bindings) => {
    try {
      return root(bindings) === true;
    } catch {
      // Giving up, or anything the interpreter reports its own way (an invalid pattern): it runs next.
      return false;
    }
  };
}
