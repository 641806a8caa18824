import type { FieldError } from '@kapi/apimachinery';
import type { CelInput } from '@bufbuild/cel';
import { childPath, isRecord } from '../schema/schema-node.js';
import type { RuleProgram } from './rule-program.js';
import type { RuleNode } from './rule-tree.js';
import { toCelValue } from './cel-value.js';

const reasons = new Set([
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
]);

/** `.spec.x`, `['a.b']`, `.list` relative to `path` -> an absolute field path. */
function withFieldPath(path: string, fieldPath: string): string {
  let out = path;
  for (const match of fieldPath.matchAll(/\.([^.[\]]+)|\['([^']*)'\]|\[(\d+)\]/g)) {
    if (match[3] !== undefined) out = `${out}[${match[3]}]`;
    else out = childPath(out, match[1] ?? match[2] ?? '');
  }
  return out;
}

function ruleError(program: RuleProgram, path: string, typeName: unknown, detail: string): FieldError {
  const { rule } = program;
  const field = rule.fieldPath ? withFieldPath(path, rule.fieldPath) : path === '' ? '<nil>' : path;
  const type = rule.reason !== undefined && reasons.has(rule.reason) ? rule.reason : 'FieldValueInvalid';
  const error: FieldError = { field, type, detail };
  if (typeof typeName === 'string') error.value = typeName;
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
): void {
  if (value === undefined || value === null) return;
  if (node.rules.length > 0) {
    const self = toCelValue(value, node.schema);
    let oldSelf: CelInput | undefined;
    for (const program of node.rules) {
      const bindings: Record<string, CelInput> = { self };
      if (program.isTransition) {
        if (old === undefined && program.rule.optionalOldSelf !== true) continue;
        oldSelf ??= toCelValue(old, node.schema);
        bindings['oldSelf'] = oldSelf;
      }
      const result = program.evaluate(bindings);
      if (result === true) continue;
      const typeName = node.schema['type'];
      if (typeof result === 'string') {
        const text = result.replace(/^field not found:/, 'no such key:');
        errors.push(ruleError(program, path, typeName, `${text} evaluating rule: ${program.rule.rule}`));
        continue;
      }
      const message =
        program.message(bindings) ?? program.rule.message ?? `failed rule: ${program.rule.rule.trim()}`;
      errors.push(ruleError(program, path, typeName, message));
    }
  }
  if (Array.isArray(value)) {
    if (node.items === undefined) return;
    const isMapList = node.schema['x-kubernetes-list-type'] === 'map';
    value.forEach((item, index) => {
      const oldItem = isMapList
        ? correlatedItem(item, old, node.schema['x-kubernetes-list-map-keys'])
        : undefined;
      evaluateNode(node.items as RuleNode, item, oldItem, `${path}[${index}]`, errors);
    });
    return;
  }
  if (!isRecord(value)) return;
  const oldObject = isRecord(old) ? old : undefined;
  for (const [name, child] of node.properties)
    evaluateNode(child, value[name], oldObject?.[name], childPath(path, name), errors);
  if (node.additionalProperties !== undefined)
    for (const [key, child] of Object.entries(value))
      evaluateNode(node.additionalProperties, child, oldObject?.[key], `${path}[${key}]`, errors);
}

/** Runs compiled CEL rules over an object (and its old version for transition rules), returning upstream-style errors. */
export function evaluateRules(root: RuleNode | undefined, object: unknown, old?: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (root !== undefined) evaluateNode(root, object, old, '', errors);
  return errors;
}
