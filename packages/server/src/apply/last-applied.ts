import type { KubeObject } from '@kapi/apimachinery';
import { sortKeys } from '../registry/object-meta.js';
import type { FieldSet } from './field-set.js';
import type { SchemaNode } from './schema-type.js';
import { isRecord } from '../json-value.js';
import { compare, toFieldSet } from './typed-value.js';

/** kubectl's client-side apply annotation. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The only manager whose applies interoperate with the annotation (kubectl --server-side). */
export const LAST_APPLIED_MANAGER = 'kubectl';

/** Most bytes all annotations of an object may take (keys and values). */
const TOTAL_ANNOTATION_BYTES = 256 * 1024;

function lastApplied(object: KubeObject): string | undefined {
  const value = object.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  return value ? value : undefined;
}

/**
 * The fields an apply by `kubectl` may take over despite conflicts (lastappliedmanager): those the
 * annotation of `live` sets with the value `live` still has. `undefined` without a usable annotation.
 */
export function allowedConflictsFromLastApplied(
  live: KubeObject,
  schema: SchemaNode | undefined,
  view: (object: KubeObject) => Record<string, unknown>,
): FieldSet | undefined {
  const text = lastApplied(live);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!isRecord(parsed)) return undefined;
    const applied = { ...parsed, metadata: isRecord(parsed['metadata']) ? parsed['metadata'] : {} } as KubeObject;
    const appliedView = view(applied);
    return toFieldSet(appliedView, schema).difference(compare(appliedView, view(live), schema).modified);
  } catch {
    return undefined;
  }
}

/**
 * After an apply by `kubectl`: an existing annotation is rewritten to the applied configuration (JSON
 * with sorted keys, without the annotation itself), or dropped when annotations would exceed 256 KiB.
 */
export function syncLastApplied(result: KubeObject, config: KubeObject): KubeObject {
  if (lastApplied(result) === undefined) return result;
  const applied = { ...config, metadata: { ...config.metadata } };
  const annotations = { ...(applied.metadata.annotations ?? {}) };
  delete annotations[LAST_APPLIED_ANNOTATION];
  if (Object.keys(annotations).length > 0) applied.metadata.annotations = annotations;
  else delete applied.metadata.annotations;
  const value = JSON.stringify(sortKeys(applied));
  if (value === lastApplied(result)) return result;
  const next: Record<string, string> = { ...(result.metadata.annotations ?? {}), [LAST_APPLIED_ANNOTATION]: value };
  const size = Object.entries(next).reduce((total, [key, text]) => total + Buffer.byteLength(key) + Buffer.byteLength(text), 0);
  if (size > TOTAL_ANNOTATION_BYTES) delete next[LAST_APPLIED_ANNOTATION];
  return { ...result, metadata: { ...result.metadata, annotations: next } };
}
