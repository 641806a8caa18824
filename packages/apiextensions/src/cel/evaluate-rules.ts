import { isCelList, isCelMap, type CelInput, type CelValue } from '@bufbuild/cel';
import { sameJson, type FieldError } from '@kapi/apimachinery';
import { childPath, isRecord } from '../schema/schema-node.js';
import type { RuleProgram } from './rule-program.js';
import type { RuleNode } from './rule-tree.js';
import { toCelValue, type CelValueCache } from './cel-value.js';
import { schemaFacts } from '../schema/schema-facts.js';
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

/**
 * Where the walk is, as segments (a property name, a list index, `{ key }` for an additionalProperties
 * key): pushed and popped on the way down, turned into a field path only for an error.
 */
type PathSegment = string | number | { key: string };

function pathOf(segments: readonly PathSegment[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'string') path = childPath(path, segment);
    else if (typeof segment === 'number') path = `${path}[${segment}]`;
    else path = `${path}[${segment.key}]`;
  }
  return path;
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

/**
 * The converted value of a child from its parent's converted map, when the parent's conversion holds it
 * exactly: under the CEL name `name` (its escaped property name, or its own key) with no other key of the
 * object able to share that name. Escaping only ever yields names containing `__`, so a name without one
 * belongs to one key alone; any other child is converted on its own, as before.
 */
function childOf(parent: CelValue | undefined, name: string): CelValue | undefined {
  if (parent === undefined || name.includes('__') || !isCelMap(parent)) return undefined;
  return parent.get(name);
}

function evaluateNode(
  node: RuleNode,
  value: unknown,
  old: unknown,
  path: PathSegment[],
  errors: FieldError[],
  cache: CelValueCache,
  converted: CelValue | undefined,
): void {
  if (value === undefined || value === null) return;
  // `converted` is `value` converted under `node.schema` by an ancestor's conversion (the same result as
  // converting it here); rule-free ancestors leave it undefined and the first node with rules converts.
  let self = converted;
  if (node.rules.length > 0) {
    self ??= toCelValue(value, node.schema) as CelValue;
    let oldSelf: CelInput | undefined;
    let unchanged: boolean | undefined;
    // Rules that do not read oldSelf share one set of bindings (evaluation only reads them).
    let shared: Record<string, CelInput> | undefined;
    for (const program of node.rules) {
      let bindings: Record<string, CelInput>;
      if (program.rule.optionalOldSelf === true) {
        bindings = {
          self,
          oldSelf: optionalOf(old === undefined ? undefined : (oldSelf ??= toCelValue(old, node.schema, cache))),
        };
      } else if (program.isTransition) {
        if (old === undefined) continue;
        bindings = { self, oldSelf: (oldSelf ??= toCelValue(old, node.schema, cache)) };
      } else bindings = shared ??= { self };
      const result = program.evaluate(bindings);
      if (result === true) continue;
      if (typeof result === 'string') {
        const text = result.replace(/^field not found:/, 'no such key:');
        const detail = text.startsWith('no such overload')
          ? `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(program)}`
          : `${text} evaluating rule: ${ruleText(program)}`;
        errors.push({ field: nodePath(pathOf(path)), type: 'FieldValueInvalid', value: node.schema['type'], detail });
        continue;
      }
      // Ratcheting (GA upstream): a value unchanged since the old object may keep failing a non-transition rule.
      if (!program.isTransition && old !== undefined && (unchanged ??= sameJson(value, old))) continue;
      const message =
        program.message(bindings) ?? (program.rule.message?.trim() || `failed rule: ${ruleText(program)}`);
      errors.push(ruleError(program, pathOf(path), value, message));
    }
  }
  if (Array.isArray(value)) {
    if (node.items === undefined) return;
    const isMapList = old !== undefined && node.schema['x-kubernetes-list-type'] === 'map';
    const items = self !== undefined && isCelList(self) ? self : undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const oldItem = isMapList
        ? correlatedItem(item, old, node.schema['x-kubernetes-list-map-keys'])
        : undefined;
      path.push(index);
      evaluateNode(node.items, item, oldItem, path, errors, cache, items?.get(index));
      path.pop();
    }
    return;
  }
  if (!isRecord(value)) return;
  const oldObject = isRecord(old) ? old : undefined;
  for (const { name, celName, node: child } of node.propertyList) {
    const field = value[name];
    // Absent fields run no rules.
    if (field === undefined || field === null) continue;
    path.push(name);
    evaluateNode(child, field, oldObject?.[name], path, errors, cache, childOf(self, celName));
    path.pop();
  }
  if (node.additionalProperties !== undefined) {
    const declared = schemaFacts(node.schema).properties;
    for (const [key, child] of Object.entries(value)) {
      path.push({ key });
      evaluateNode(
        node.additionalProperties,
        child,
        oldObject?.[key],
        path,
        errors,
        cache,
        // A declared key was converted under its property's schema, not the additionalProperties one.
        declared.has(key) ? undefined : childOf(self, key),
      );
      path.pop();
    }
  }
}

/** Runs compiled CEL rules over an object (and its old version for transition rules), returning upstream-style errors. */
export function evaluateRules(root: RuleNode | undefined, object: unknown, old?: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (root !== undefined) evaluateNode(root, object, old, [], errors, new Map(), undefined);
  return errors;
}
