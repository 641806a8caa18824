import { sameJson, type FieldError } from '@kapi/apimachinery';
import { isRecord } from './schema-node.js';

/** The value at a field path (`spec.rules[0].name`, `spec.labels[key]`), or undefined when it does not resolve. */
function valueAt(object: unknown, path: string): unknown {
  let current = object;
  for (const match of path.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    const key = match[1] ?? match[2] ?? '';
    if (Array.isArray(current) && match[2] !== undefined) current = current[Number(key)];
    else if (isRecord(current)) current = current[key];
    else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

function parentPath(path: string): string {
  return path.replace(/(\.[^.[\]]+|\[[^\]]*\])$/, '');
}

/**
 * Validation ratcheting (GA upstream): on update, errors about a value that is unchanged since the old object are
 * dropped, so objects stored before a schema got stricter stay updatable. A Required error belongs to its parent.
 */
export function ratchetErrors(errors: FieldError[], object: unknown, old: unknown): FieldError[] {
  return errors.filter((error) => {
    if (error.field === '<nil>' || error.field === '') return true;
    const path = error.type === 'FieldValueRequired' ? parentPath(error.field) : error.field;
    const now = valueAt(object, path);
    return now === undefined || !sameJson(now, valueAt(old, path));
  });
}
