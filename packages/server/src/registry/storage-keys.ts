import type { ResourceDefinition } from '../resource-definition.js';

/** `<keyPrefix><storagePrefix or /resource>`, e.g. `/registry/widgets`. */
export function resourcePrefix(keyPrefix: string, definition: ResourceDefinition): string {
  const trimmed = keyPrefix.endsWith('/') ? keyPrefix.slice(0, -1) : keyPrefix;
  const resourcePart = definition.storagePrefix ?? `/${definition.resource}`;
  return `${trimmed}${resourcePart.startsWith('/') ? resourcePart : `/${resourcePart}`}`;
}

/** The key of one object: `<prefix>/<namespace>/<name>`, or `<prefix>/<name>` when cluster-scoped. */
export function objectKey(prefix: string, namespace: string, name: string): string {
  return namespace === '' ? `${prefix}/${name}` : `${prefix}/${namespace}/${name}`;
}

/** The key a list or watch covers: every object, or one namespace's (with a trailing slash). */
export function listKey(prefix: string, namespace: string): string {
  return namespace === '' ? `${prefix}/` : `${prefix}/${namespace}/`;
}
