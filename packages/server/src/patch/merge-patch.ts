import { StatusError } from '@kapi/apimachinery';
import { isRecord } from '../json-value.js';

/** RFC 7386 merge of `patch` into `target` (returns a new value; `null` members delete). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * Applies a JSON merge patch as the apiserver does: a `null` or scalar body is 400 `Invalid JSON Patch`;
 * an array body replaces the document (and then fails to decode as an object).
 */
export function applyMergePatch(document: unknown, body: unknown): unknown {
  if (body === null || typeof body !== 'object') throw StatusError.badRequest('Invalid JSON Patch');
  return mergePatch(document, body);
}
