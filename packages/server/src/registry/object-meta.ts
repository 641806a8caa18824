import type { KubeObject } from '@kapi/apimachinery';

/** RFC 3339 with whole seconds, as metav1.Time serializes. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A deep copy of a JSON object. */
export function copyObject<T extends KubeObject>(object: T): T {
  return structuredClone(object);
}

/** Everything but metadata and status, for deciding whether `metadata.generation` moves. */
function specPart(object: KubeObject): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...object };
  delete rest['metadata'];
  delete rest['status'];
  delete rest['apiVersion'];
  delete rest['kind'];
  return rest;
}

/** True when anything besides metadata and status differs (upstream bumps generation then). */
export function specChanged(previous: KubeObject, next: KubeObject): boolean {
  return JSON.stringify(sortKeys(specPart(previous))) !== JSON.stringify(sortKeys(specPart(next)));
}

/** JSON with object keys sorted, for order-insensitive comparison. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
