import type { parse } from '@bufbuild/cel';
import { childSchema, itemSchema, type SchemaNode } from '../schema/schema-node.js';
import { unescapePropertyName } from './cel-value.js';

/** A parsed CEL expression tree. */
export type Expr = ReturnType<typeof parse>['expr'];

/** Upstream's `StaticEstimatedCostLimit`: the estimated cost one rule may have. */
export const staticEstimatedCostLimit = 10_000_000;
/** Upstream's `StaticEstimatedCRDCostLimit`: the estimated cost all rules of one schema may have together. */
export const staticEstimatedCRDCostLimit = 100_000_000;
/** Upstream's maximum request size, which bounds lists, maps and strings without maxItems/maxProperties/maxLength. */
const maxRequestSizeBytes = 3 * 1024 * 1024;

/** The smallest JSON serialisation of a value of this schema (bounds how many fit in a request). */
function minSerializedSize(schema: SchemaNode | undefined): number {
  switch (schema?.['type']) {
    case 'string':
      return 2;
    case 'boolean':
      return 4;
    case 'integer':
    case 'number':
      return 1;
    default:
      return 2;
  }
}

/** How many elements a list or map of this schema can hold at most. */
function maxCardinality(schema: SchemaNode | undefined): number {
  const declared = schema?.['maxItems'] ?? schema?.['maxProperties'];
  if (typeof declared === 'number') return declared;
  const element =
    itemSchema(schema) ??
    (typeof schema?.['additionalProperties'] === 'object' ? childSchema(schema, '') : undefined);
  return Math.floor((maxRequestSizeBytes - 2) / (minSerializedSize(element) + 1));
}

function maxLength(schema: SchemaNode | undefined): number {
  const declared = schema?.['maxLength'];
  return typeof declared === 'number' ? declared : maxRequestSizeBytes;
}

/** Functions whose cost grows with the length of their string target/argument. */
const stringTraversals = new Set([
  'matches',
  'contains',
  'startsWith',
  'endsWith',
  'split',
  'find',
  'findAll',
  'replace',
  'indexOf',
  'lastIndexOf',
  'lowerAscii',
  'upperAscii',
  'trim',
  'substring',
  'join',
  'isURL',
]);

interface Estimate {
  cost: number;
  schema: SchemaNode | undefined;
}

/**
 * A rough static cost estimate of a rule, in upstream's units: one per operation, comprehensions multiplied by the
 * largest size their range can have (maxItems/maxProperties, else what fits in a request), string functions by a
 * tenth of the largest string length.
 */
export function estimateCost(expr: Expr, self: SchemaNode): number {
  return estimate(
    expr,
    new Map([
      ['self', self],
      ['oldSelf', self],
    ]),
  ).cost;
}

function estimate(expr: Expr, scope: Map<string, SchemaNode | undefined>): Estimate {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
      return { cost: 1, schema: scope.get(kind.value.name) };
    case 'selectExpr': {
      const operand = kind.value.operand
        ? estimate(kind.value.operand, scope)
        : { cost: 0, schema: undefined };
      return {
        cost: operand.cost + 1,
        schema: childSchema(operand.schema, unescapePropertyName(kind.value.field)),
      };
    }
    case 'callExpr': {
      const call = kind.value;
      const target = call.target ? estimate(call.target, scope) : undefined;
      const args = call.args.map((arg) => estimate(arg, scope));
      let cost = 1 + (target?.cost ?? 0) + args.reduce((total, arg) => total + arg.cost, 0);
      if (stringTraversals.has(call.function)) {
        const longest = Math.max(
          ...[target, ...args].map((part) =>
            part?.schema?.['type'] === 'string' ? maxLength(part.schema) : 0,
          ),
        );
        cost += Math.ceil(longest * 0.1);
      }
      const indexed = call.function === '_[_]' ? args[0]?.schema : undefined;
      const schema = indexed === undefined ? undefined : (itemSchema(indexed) ?? childSchema(indexed, ''));
      return { cost, schema };
    }
    case 'listExpr':
      return {
        cost: 1 + kind.value.elements.reduce((total, element) => total + estimate(element, scope).cost, 0),
        schema: { type: 'array', maxItems: kind.value.elements.length },
      };
    case 'structExpr':
      return {
        cost:
          1 +
          kind.value.entries.reduce(
            (total, entry) => total + (entry.value ? estimate(entry.value, scope).cost : 0),
            0,
          ),
        schema: undefined,
      };
    case 'comprehensionExpr': {
      const loop = kind.value;
      const range = loop.iterRange ? estimate(loop.iterRange, scope) : { cost: 0, schema: undefined };
      const inner = new Map(scope);
      const isList = range.schema?.['type'] === 'array';
      inner.set(loop.iterVar, isList ? itemSchema(range.schema) : { type: 'string' });
      const body = [loop.loopCondition, loop.loopStep].reduce(
        (total, part) => total + (part ? estimate(part, inner).cost : 0),
        0,
      );
      const once = [loop.accuInit, loop.result].reduce(
        (total, part) => total + (part ? estimate(part, scope).cost : 0),
        0,
      );
      return { cost: range.cost + once + maxCardinality(range.schema) * body, schema: undefined };
    }
    default:
      return { cost: 0, schema: undefined };
  }
}

/** Upstream's wording of a cost-budget refusal. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const rendered =
    factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${rendered} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
