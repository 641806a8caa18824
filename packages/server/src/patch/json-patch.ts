import { sameJson, StatusError } from '@kapi/apimachinery';

/** The most operations one JSON patch may carry (upstream `MaxJSONPatchOperations`). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** The generic 422 a failed patch operation gives: upstream hides the cause. */
export function patchRejected(): StatusError {
  return StatusError.of(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

class PatchOperationError extends Error {}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Splits an RFC 6901 JSON pointer into unescaped tokens (`~1` -> `/`, `~0` -> `~`). */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new PatchOperationError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(array: unknown[], token: string, forInsert: boolean): number {
  if (token === '-' && forInsert) return array.length;
  if (!/^-?\d+$/.test(token)) throw new PatchOperationError(`invalid array index ${token}`);
  let index = Number(token);
  // evanphx/json-patch allows negative indices counted from the end.
  if (index < 0) index += array.length;
  const max = forInsert ? array.length : array.length - 1;
  if (index < 0 || index > max) throw new PatchOperationError(`array index ${token} out of bounds`);
  return index;
}

/** Walks to the parent container of the pointer's last token. */
function resolveParent(document: unknown, tokens: string[]): { parent: Container; key: string } {
  let current: unknown = document;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[arrayIndex(current, token, false)];
    else if (isContainer(current) && Object.prototype.hasOwnProperty.call(current, token))
      current = (current as Record<string, unknown>)[token];
    else throw new PatchOperationError(`missing path component ${token}`);
  }
  if (!isContainer(current)) throw new PatchOperationError('parent is not a container');
  return { parent: current, key: tokens[tokens.length - 1] ?? '' };
}

function getValue(document: unknown, tokens: string[]): unknown {
  if (tokens.length === 0) return document;
  const { parent, key } = resolveParent(document, tokens);
  if (Array.isArray(parent)) return parent[arrayIndex(parent, key, false)];
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new PatchOperationError(`missing key ${key}`);
  return parent[key];
}

function has(document: unknown, tokens: string[]): boolean {
  try {
    getValue(document, tokens);
    return true;
  } catch {
    return false;
  }
}

interface Holder {
  root: unknown;
}

function addValue(holder: Holder, tokens: string[], value: unknown): void {
  if (tokens.length === 0) {
    holder.root = value;
    return;
  }
  const { parent, key } = resolveParent(holder.root, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else parent[key] = value;
}

function removeValue(holder: Holder, tokens: string[]): unknown {
  if (tokens.length === 0) throw new PatchOperationError('cannot remove the document root');
  const { parent, key } = resolveParent(holder.root, tokens);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, false), 1)[0];
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new PatchOperationError(`missing key ${key}`);
  const removed = parent[key];
  delete parent[key];
  return removed;
}

function replaceValue(holder: Holder, tokens: string[], value: unknown): void {
  if (tokens.length === 0) {
    holder.root = value;
    return;
  }
  const { parent, key } = resolveParent(holder.root, tokens);
  if (Array.isArray(parent)) parent[arrayIndex(parent, key, false)] = value;
  // evanphx/json-patch: replace of an absent object key behaves like add.
  else parent[key] = value;
}

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/** Parses a JSON patch body; a body that is not an array of operations is a 400 with the decode error. */
export function parseJsonPatch(body: unknown): JsonPatchOperation[] {
  if (!Array.isArray(body)) {
    const type = body === null ? 'null' : typeof body === 'object' ? 'object' : typeof body;
    throw StatusError.badRequest(`json: cannot unmarshal ${type} into Go value of type jsonpatch.Patch`);
  }
  if (body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw StatusError.requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`,
    );
  }
  return body.map((operation) => {
    if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) {
      throw StatusError.badRequest(
        'json: cannot unmarshal non-object into Go value of type jsonpatch.Operation',
      );
    }
    return operation as JsonPatchOperation;
  });
}

function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new PatchOperationError(`operation missing ${what}`);
  return value;
}

/**
 * Applies an RFC 6902 JSON patch to a copy of `document` with evanphx/json-patch's quirks (negative
 * indices, replace of a missing key adds it, test of null passes on an absent key). Any failing
 * operation gives upstream's generic 422.
 */
export function applyJsonPatch(document: unknown, body: unknown): unknown {
  const operations = parseJsonPatch(body);
  const holder: Holder = { root: clone(document) };
  try {
    for (const operation of operations) {
      const tokens = parseJsonPointer(requireString(operation.path, 'path'));
      switch (operation.op) {
        case 'add':
          if (!('value' in operation)) throw new PatchOperationError('add without value');
          addValue(holder, tokens, clone(operation.value));
          break;
        case 'remove':
          removeValue(holder, tokens);
          break;
        case 'replace':
          if (!('value' in operation)) throw new PatchOperationError('replace without value');
          replaceValue(holder, tokens, clone(operation.value));
          break;
        case 'move': {
          const from = parseJsonPointer(requireString(operation.from, 'from'));
          const value = removeValue(holder, from);
          addValue(holder, tokens, value);
          break;
        }
        case 'copy': {
          const from = parseJsonPointer(requireString(operation.from, 'from'));
          addValue(holder, tokens, clone(getValue(holder.root, from)));
          break;
        }
        case 'test': {
          const expected = operation.value ?? null;
          if (expected === null && !has(holder.root, tokens)) break;
          if (!sameJson(getValue(holder.root, tokens), expected))
            throw new PatchOperationError('test failed');
          break;
        }
        default:
          throw new PatchOperationError(`unknown op ${String(operation.op)}`);
      }
    }
  } catch (error) {
    if (error instanceof PatchOperationError) throw patchRejected();
    throw error;
  }
  return holder.root;
}
