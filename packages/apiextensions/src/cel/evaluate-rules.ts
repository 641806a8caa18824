import type { FieldError } from '@kapi/apimachinery';
import type { CelInput } from '@bufbuild/cel';
import { childPath, isRecord, sameJson } from '../schema/schema-node.js';
import type { RuleProgram } from './rule-program.js';
import type { RuleNode } from './rule-tree.js';
import { toCelValue, type CelValueCache } from './cel-value.js';
import { optionalOf } from './optional-value.js';
import { ruleReasons } from './rule-shape.js';

const reasons = new Set(ruleReasons);

/** `.spec.x`, `['a.b']`, `.list` relative to `path` -> an absolute field path. */
function withFieldPath(path: string, fieldPath: string): string {
  let out = path;
  for (const match of fieldPath.matchAll(/\.([^.[\]]+)|\['([^']*)'\]|\[(\d+)\]/g)) {
    if (match[3] !== undefined) out = `${out}[${match[3]}]`;
    else out = childPath(out, match[1] ?? match[2] ?? '');
  }
  return out;
}

/** The rule's message, else `failed rule: <rule>` (upstream's ruleErrorString: the message when there is one). */
function ruleText(program: RuleProgram): string {
  return program.rule.message?.trim() || program.rule.rule.trim();
}

function nodePath(path: string): string {
  return path === '' ? '<nil>' : path;
}

/**
 * A failed rule as upstream reports it: the reason picks the error type, the value is shown for scalars and
 * omitted for objects and arrays.
 */
function ruleError(program: RuleProgram, path: string, value: unknown, detail: string): FieldError {
  const { rule } = program;
  const field = rule.fieldPath ? withFieldPath(path, rule.fieldPath) : nodePath(path);
  const type = rule.reason !== undefined && reasons.has(rule.reason) ? rule.reason : 'FieldValueInvalid';
  const error: FieldError = { field, type, detail: type === 'FieldValueDuplicate' ? '' : detail };
  if (typeof value !== 'object' || value === null) error.value = value;
  return error;
}

/** The old item of a map list with the same key values as `item`, or undefined. */
function correlatedItem(item: unknown, old: unknown, keys: unknown): unknown {
  if (!Array.isArray(old) || !Array.isArray(keys) || !isRecord(item)) return undefined;
  return old.find(
    (candidate) =>
      isRecord(candidate) &&
      keys.every((key: unknown) => typeof key === 'string' && candidate[key] === item[key]),
  );
}

function evaluateNode(
  node: RuleNode,
  value: unknown,
  old: unknown,
  path: string,
  errors: FieldError[],
  cache: CelValueCache,
): void {
  if (value === undefined || value === null) return;
  if (node.rules.length > 0) {
    const self = toCelValue(value, node.schema, cache);
    let oldSelf: CelInput | undefined;
    let unchanged: boolean | undefined;
    for (const program of node.rules) {
      const bindings: Record<string, CelInput> = { self };
      if (program.rule.optionalOldSelf === true) {
        bindings['oldSelf'] = optionalOf(
          old === undefined ? undefined : (oldSelf ??= toCelValue(old, node.schema, cache)),
        );
      } else if (program.isTransition) {
        if (old === undefined) continue;
        bindings['oldSelf'] = oldSelf ??= toCelValue(old, node.schema, cache);
      }
      const result = program.evaluate(bindings);
      if (result === true) continue;
      if (typeof result === 'string') {
        const text = result.replace(/^field not found:/, 'no such key:');
        const detail = text.startsWith('no such overload')
          ? `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(program)}`
          : `${text} evaluating rule: ${ruleText(program)}`;
        errors.push({ field: nodePath(path), type: 'FieldValueInvalid', value: node.schema['type'], detail });
        continue;
      }
      // Ratcheting (GA upstream): a value unchanged since the old object may keep failing a non-transition rule.
      if (!program.isTransition && old !== undefined && (unchanged ??= sameJson(value, old))) continue;
      const message =
        program.message(bindings) ?? (program.rule.message?.trim() || `failed rule: ${ruleText(program)}`);
      errors.push(ruleError(program, path, value, message));
    }
  }
  if (Array.isArray(value)) {
    if (node.items === undefined) return;
    const isMapList = node.schema['x-kubernetes-list-type'] === 'map';
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const oldItem = isMapList
        ? correlatedItem(item, old, node.schema['x-kubernetes-list-map-keys'])
        : undefined;
      evaluateNode(node.items, item, oldItem, `${path}[${index}]`, errors, cache);
    }
    return;
  }
  if (!isRecord(value)) return;
  const oldObject = isRecord(old) ? old : undefined;
  for (const [name, child] of node.properties) {
    const field = value[name];
    // Absent fields run no rules: skip them before building their path.
    if (field !== undefined && field !== null) evaluateNode(child, field, oldObject?.[name], childPath(path, name), errors, cache);
  }
  if (node.additionalProperties !== undefined)
    for (const [key, child] of Object.entries(value))
      evaluateNode(node.additionalProperties, child, oldObject?.[key], `${path}[${key}]`, errors, cache);
}

/** Runs compiled CEL rules over an object (and its old version for transition rules), returning upstream-style errors. */
export function evaluateRules(root: RuleNode | undefined, object: unknown, old?: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (root !== undefined) evaluateNode(root, object, old, '', errors, new Map());
  return errors;
}
