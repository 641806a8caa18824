import { isRecord, type SchemaNode } from '../schema/schema-node.js';
import { unescapePropertyName } from './cel-value.js';
import type { Expr } from './cost-estimate.js';

/** Where each expression id sits in the source (the parser's `sourceInfo.positions`). */
export type Positions = Record<string, number>;

/** The CEL type name of a scalar schema, as the type checker prints it. */
function scalarTypeName(schema: SchemaNode): string | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) return undefined;
  switch (schema['type']) {
    case 'string':
      if (schema['format'] === 'date-time') return 'google.protobuf.Timestamp';
      if (schema['format'] === 'duration') return 'google.protobuf.Duration';
      return schema['format'] === 'byte' ? 'bytes' : 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    default:
      return undefined;
  }
}

/** What a selection of `field` on a value of `schema` gives: its schema, an error, or nothing known. */
function select(schema: SchemaNode, field: string): { schema?: SchemaNode; error?: string } {
  const scalar = scalarTypeName(schema);
  if (scalar !== undefined) return { error: `type '${scalar}' does not support field selection` };
  if (schema['type'] !== 'object' || schema['x-kubernetes-preserve-unknown-fields'] === true) return {};
  const properties = isRecord(schema['properties']) ? schema['properties'] : undefined;
  const additional = schema['additionalProperties'];
  if (additional !== undefined && additional !== false)
    return isRecord(additional) ? { schema: additional } : {};
  const name = unescapePropertyName(field);
  const declared = properties?.[name];
  if (isRecord(declared)) return { schema: declared };
  // A resource's (the root's, an embedded one's) TypeMeta and metadata are there without being declared.
  if (['apiVersion', 'kind', 'metadata'].includes(name)) return {};
  return { error: `undefined field '${field}'` };
}

/**
 * The schema a chain of selections rooted at `self` or `oldSelf` (`self.spec.size`) refers to: a schema,
 * an error found on the way, or nothing known (another root, a map lookup of unknown shape, a macro).
 */
function resolve(
  expr: Expr,
  self: SchemaNode,
  errors: Array<{ id: bigint; message: string }>,
): SchemaNode | undefined {
  const kind = expr.exprKind;
  if (kind.case === 'identExpr')
    return kind.value.name === 'self' || kind.value.name === 'oldSelf' ? self : undefined;
  if (kind.case !== 'selectExpr' || kind.value.operand === undefined) return undefined;
  const operand = resolve(kind.value.operand, self, errors);
  if (operand === undefined) return undefined;
  const selected = select(operand, kind.value.field);
  if (selected.error !== undefined) errors.push({ id: expr.id, message: selected.error });
  return selected.schema;
}

function children(expr: Expr): Expr[] {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      return kind.value.operand ? [kind.value.operand] : [];
    case 'callExpr':
      return [...(kind.value.target ? [kind.value.target] : []), ...kind.value.args];
    case 'listExpr':
      return kind.value.elements;
    case 'structExpr':
      return kind.value.entries.flatMap((entry) => [
        ...(entry.keyKind.case === 'mapKey' ? [entry.keyKind.value] : []),
        ...(entry.value ? [entry.value] : []),
      ]);
    case 'comprehensionExpr': {
      const value = kind.value;
      return [value.iterRange, value.accuInit, value.loopCondition, value.loopStep, value.result].filter(
        (part): part is Expr => part !== undefined,
      );
    }
    default:
      return [];
  }
}

/**
 * What upstream's type checker finds in an expression over `self` of a known schema, as far as it is
 * found without a full checker: a field selected on a scalar, a field the schema does not declare. Each
 * as cel-go prints it (`ERROR: <input>:1:5: undefined field 'foo'`), first one only.
 */
export function schemaSelectionError(expr: Expr, positions: Positions, self: SchemaNode): string | undefined {
  const errors: Array<{ id: bigint; message: string }> = [];
  const pending: Expr[] = [expr];
  while (pending.length > 0 && errors.length === 0) {
    const next = pending.pop() as Expr;
    if (next.exprKind.case === 'selectExpr') resolve(next, self, errors);
    pending.push(...children(next));
  }
  const first = errors[0];
  if (first === undefined) return undefined;
  const offset = positions[String(first.id)] ?? 0;
  return `ERROR: <input>:1:${offset + 1}: ${first.message}`;
}

/**
 * The type an expression certainly evaluates to when that is plain to see: a constant's, or a scalar
 * field's reached by selections from `self` (`int`, `string`...); undefined otherwise.
 */
export function evidentType(expr: Expr, self: SchemaNode): string | undefined {
  const constant = constantType(expr);
  if (constant !== undefined || expr.exprKind.case !== 'selectExpr' || expr.exprKind.value.testOnly)
    return constant;
  const schema = resolve(expr, self, []);
  return schema === undefined ? undefined : scalarTypeName(schema);
}

function constantType(expr: Expr): string | undefined {
  const kind = expr.exprKind;
  if (kind.case !== 'constExpr') return undefined;
  switch (kind.value.constantKind.case) {
    case 'boolValue':
      return 'bool';
    case 'stringValue':
      return 'string';
    case 'int64Value':
      return 'int';
    case 'uint64Value':
      return 'uint';
    case 'doubleValue':
      return 'double';
    case 'bytesValue':
      return 'bytes';
    case 'nullValue':
      return 'null';
    default:
      return undefined;
  }
}
