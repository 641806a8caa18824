import { parse, plan, isCelError, type CelEnv, type CelInput, type CelValue } from '@bufbuild/cel';

import type { ValidationRule } from '../schema/json-schema-props.js';
import type { SchemaNode } from '../schema/schema-node.js';
import { admissionEnvironment, policyEnvironment, ruleEnvironment } from './cel-environment.js';
import { toCelValue } from './cel-value.js';
import { jsonCelMap } from './json-containers.js';
import { estimateCost, type Expr } from './cost-estimate.js';
import { compileFastRule, type FastRule } from './fast-path.js';
import { evidentType, schemaSelectionError, type Positions } from './schema-check.js';

/** A compiled `x-kubernetes-validations` entry. */
export interface RuleProgram {
  readonly rule: ValidationRule;
  /** The rule reads `oldSelf`: it runs only on update with an old value (unless optionalOldSelf). */
  readonly isTransition: boolean;
  /** The static cost estimate. */
  readonly cost: number;
  /** Evaluates the rule: true, false, or an error text. */
  evaluate(bindings: Record<string, CelInput>): boolean | string;
  /** Evaluates messageExpression when there is one: its string, or undefined when it gives none. */
  message(bindings: Record<string, CelInput>): string | undefined;
}

/** What compiling one expression can give: a program and what it references, or an upstream-style error. */
type Compiled =
  | { program: (bindings: Record<string, CelInput>) => unknown; fast: FastRule | undefined; usesOldSelf: boolean; expr: Expr; positions: Positions }
  | { error: string };

function visit(expr: Expr | undefined, seen: (expr: Expr) => void): void {
  if (expr === undefined) return;
  seen(expr);
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      visit(kind.value.operand, seen);
      break;
    case 'callExpr':
      visit(kind.value.target, seen);
      for (const arg of kind.value.args) visit(arg, seen);
      break;
    case 'listExpr':
      for (const element of kind.value.elements) visit(element, seen);
      break;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value, seen);
        visit(entry.value, seen);
      }
      break;
    case 'comprehensionExpr':
      for (const part of [
        kind.value.iterRange,
        kind.value.accuInit,
        kind.value.loopCondition,
        kind.value.loopStep,
        kind.value.result,
      ])
        visit(part, seen);
      break;
    default:
  }
}

/** Operators (`_&&_`, `!_`, `@in`, `@not_strictly_false`) are part of the language, not declared functions. */
function isOperator(name: string): boolean {
  return name.startsWith('_') || name.startsWith('!') || name.startsWith('@');
}

const compiledExpressions = new Map<string, Compiled>();
let compilations = 0;

/** How many CEL expressions this process has compiled (each distinct rule once, not once per request). */
export function celCompilationCount(): number {
  return compilations;
}
const maxCachedExpressions = 10_000;

/**
 * Compiles an expression once per source text: parsing costs milliseconds per rule, and the same rules recur in
 * every served version of a CRD and in both the CRD check and the CR handler. Programs are pure, so sharing is safe.
 */
function compileCached(source: string): Compiled {
  let compiled = compiledExpressions.get(source);
  if (compiled === undefined) {
    compiled = compileExpression(source);
    if (compiledExpressions.size < maxCachedExpressions) compiledExpressions.set(source, compiled);
  }
  return compiled;
}

/** Parses and plans one expression, refusing functions the environment does not declare (as upstream's checker does). */
function compileExpression(source: string, environment: CelEnv = ruleEnvironment()): Compiled {
  compilations++;
  let expr: Expr;
  let positions: Positions;
  try {
    const parsed = parse(source);
    expr = parsed.expr;
    positions = (parsed.sourceInfo?.positions ?? {}) as Positions;
  } catch (error) {
    return { error: `ERROR: ${(error as Error).message}` };
  }
  let usesOldSelf = false;
  let unknown: string | undefined;
  visit(expr, (node) => {
    const kind = node.exprKind;
    if (kind.case === 'identExpr' && kind.value.name === 'oldSelf') usesOldSelf = true;
    if (kind.case !== 'callExpr' || unknown !== undefined || isOperator(kind.value.function)) return;
    // `ip.isCanonical(x)` parses as a call of isCanonical on `ip`: a namespaced function.
    const target = kind.value.target?.exprKind;
    const qualified = target?.case === 'identExpr' ? `${target.value.name}.${kind.value.function}` : undefined;
    const declared = (name: string | undefined) => name !== undefined && environment.funcs.find(name) !== undefined;
    if (!declared(kind.value.function) && !declared(qualified)) unknown = kind.value.function;
  });
  if (unknown !== undefined)
    return { error: `ERROR: <input>: undeclared reference to '${unknown}' (in container '')` };
  const program = plan(environment, expr);
  return { program: (bindings) => program(bindings), fast: compileFastRule(expr), usesOldSelf, expr, positions };
}

/**
 * Runs a planned program without capturing stack traces: the interpreter builds an Error for every absent field
 * it reads (`has()` and the commutative `&&`/`||` absorb most of them), and capturing their stacks cost more
 * than the rest of the evaluation. Nothing reads those stacks; the messages are unchanged.
 */
function run(program: (bindings: Record<string, CelInput>) => unknown, bindings: Record<string, CelInput>): unknown {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return program(bindings);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * What the type checker would refuse in a compiled expression on `node` (as far as it is seen without
 * one): a selection the schema does not allow, or a result of the wrong type. An upstream-style text.
 */
function typeError(compiled: Compiled, node: SchemaNode, resultType: 'bool' | 'string'): string | undefined {
  if ('error' in compiled) return `compilation failed: ${compiled.error}`;
  const selection = schemaSelectionError(compiled.expr, compiled.positions, node);
  if (selection !== undefined) return `compilation failed: ${selection}`;
  const type = evidentType(compiled.expr, node);
  if (type === undefined || type === resultType) return undefined;
  return resultType === 'bool' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string';
}

/**
 * Compiles a validation rule (and its messageExpression) for the schema node it sits on; the errors are
 * the CRD field error details upstream gives (`compilation failed: ERROR: ...`).
 */
export function compileRule(
  rule: ValidationRule,
  node: SchemaNode,
): RuleProgram | { ruleError?: string; messageError?: string } {
  const compiled = compileCached(rule.rule);
  const message = rule.messageExpression?.trim() ? compileCached(rule.messageExpression) : undefined;
  const ruleError = typeError(compiled, node, 'bool');
  const messageError = message === undefined ? undefined : typeError(message, node, 'string');
  if (ruleError !== undefined || messageError !== undefined || 'error' in compiled || (message !== undefined && 'error' in message)) {
    return {
      ...(ruleError !== undefined ? { ruleError } : {}),
      ...(messageError !== undefined ? { messageError } : {}),
    };
  }
  const messageProgram = message?.program;
  return {
    rule,
    isTransition: compiled.usesOldSelf,
    cost:
      estimateCost(compiled.expr, node) +
      (message !== undefined && !('error' in message) ? estimateCost(message.expr, node) : 0),
    evaluate(bindings) {
      if (compiled.fast?.(bindings) === true) return true;
      const result = run(compiled.program, bindings);
      if (typeof result === 'boolean') return result;
      if (isCelError(result)) return result.message;
      return 'rule did not evaluate to a bool';
    },
    message(bindings) {
      if (messageProgram === undefined) return undefined;
      const result = run(messageProgram, bindings);
      return typeof result === 'string' && result.trim() !== '' ? result.trim() : undefined;
    },
  };
}

/** A policy's composition variables as evaluated so far (`variables.<name>` in later expressions). */
export class ComposedVariables {
  readonly values = new Map<string, CelValue>();
}

/** A compiled admission expression (a webhook's matchConditions entry, a policy's validation or variable). */
export interface AdmissionExpression {
  /**
   * Evaluates it with JSON values bound to its variables (and a policy's `variables` so far): a boolean,
   * a string, null, or an error text.
   */
  evaluate(variables: Record<string, unknown>, composed?: ComposedVariables): { value: boolean | string | null } | { error: string };
  /** Evaluates it as the composition variable `name`: its value is kept in `composed`; an error text if it fails. */
  compose(variables: Record<string, unknown>, composed: ComposedVariables, name: string): string | undefined;
}

const admissionExpressions = new Map<string, AdmissionExpression | { error: string }>();

/**
 * Compiles an admission expression: a webhook's match condition (`object`, `oldObject`, `request`) or,
 * with `policy`, a ValidatingAdmissionPolicy's (also `params`, `namespaceObject` and `variables`), with the
 * libraries of CRD rules and `authorizer` (bind it with {@link authorizerVariable} and evaluate within
 * {@link evaluateWithAuthorizer}); an upstream-style `compilation failed: ERROR: ...` when it does not compile.
 */
export function compileAdmissionExpression(expression: string, policy = false): AdmissionExpression | { error: string } {
  const key = `${policy ? 'policy' : 'webhook'}\u0000${expression}`;
  let compiled = admissionExpressions.get(key);
  if (compiled !== undefined) return compiled;
  const program = compileExpression(expression, policy ? policyEnvironment() : admissionEnvironment());
  if ('error' in program) compiled = { error: `compilation failed: ${program.error}` };
  else {
    const raw = (variables: Record<string, unknown>, composed?: ComposedVariables): unknown => {
      const bindings: Record<string, CelInput> = {};
      for (const [name, value] of Object.entries(variables))
        bindings[name] = name === 'authorizer' ? (value as CelInput) : toCelValue(value, undefined);
      if (composed) bindings['variables'] = jsonCelMap(composed.values);
      return run(program.program, bindings);
    };
    compiled = {
      evaluate(variables, composed) {
        const result = raw(variables, composed);
        if (typeof result === 'boolean' || typeof result === 'string' || result === null) return { value: result };
        if (isCelError(result)) return { error: result.message };
        return { error: 'the expression did not evaluate to a bool, a string or null' };
      },
      compose(variables, composed, name) {
        const result = raw(variables, composed);
        if (isCelError(result)) return result.message;
        composed.values.set(name, result as CelValue);
        return undefined;
      },
    };
  }
  if (admissionExpressions.size < maxCachedExpressions) admissionExpressions.set(key, compiled);
  return compiled;
}
