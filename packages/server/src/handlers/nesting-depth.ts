import { StatusError } from '@kapi/apimachinery';
import { Parser } from 'yaml';

/**
 * How deep a request body may nest (objects and arrays). Go's JSON decoder stops at 10000 levels; the
 * server's own walks of a body (pruning, defaulting, validation, patches, managedFields) recurse, and YAML
 * parsing recurses several frames per level, so a body nested deeper than the stack allows would fail
 * with a stack overflow: a 500, or, inside YAML's regular expressions, a crash of the process. Real
 * Kubernetes objects nest a few dozen levels (the deepest fixture CRD: 38).
 */
export const MAX_BODY_NESTING_DEPTH = 256;

/** True when `value` (parsed JSON) nests objects and arrays more than `limit` levels deep. */
export function nestsDeeperThan(value: unknown, limit = MAX_BODY_NESTING_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}

/** A syntax token of `yaml`'s CST, as far as its nesting goes. */
interface CstToken {
  type?: string;
  items?: Array<{ key?: unknown; value?: unknown }>;
  value?: unknown;
}

/**
 * True when the YAML `text` nests collections more than `limit` levels deep, found from the syntax tree
 * (built without recursion) before the text is composed into values (which recurses).
 */
export function yamlNestsDeeperThan(text: string, limit = MAX_BODY_NESTING_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [];
  for (const token of new Parser().parse(text)) stack.push([token, 0]);
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    const token = node as CstToken;
    const collection = token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection';
    const here = collection ? depth + 1 : depth;
    if (here > limit) return true;
    if (token.items) {
      for (const item of token.items) {
        stack.push([item.key, here]);
        stack.push([item.value, here]);
      }
    } else if (token.value !== undefined) stack.push([token.value, here]);
  }
  return false;
}

/** The 400 of a body nested deeper than {@link MAX_BODY_NESTING_DEPTH}, after `prefix` (the decoder's). */
export function tooDeepError(prefix: string): StatusError {
  return StatusError.badRequest(`${prefix}exceeded max depth of ${MAX_BODY_NESTING_DEPTH} nested objects and arrays`);
}
