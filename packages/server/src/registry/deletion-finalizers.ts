import type { KubeObject } from '@kapi/apimachinery';

/** A DELETE's `propagationPolicy` (metav1.DeletionPropagation). */
export type DeletionPropagation = 'Orphan' | 'Background' | 'Foreground';

/** The garbage-collection part of a DELETE's options (metav1.DeleteOptions). */
export interface DeletePropagationOptions {
  propagationPolicy?: DeletionPropagation;
  /** Deprecated form of `propagationPolicy`: true is Orphan, false is Background. */
  orphanDependents?: boolean;
}

/** The finalizer with which the garbage collector orphans an object's dependents (metav1.FinalizerOrphanDependents). */
export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';

/** The finalizer with which the garbage collector deletes an object's dependents first (metav1.FinalizerDeleteDependents). */
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/**
 * Upstream's `shouldOrphanDependents`: the options decide first, then a finalizer the object already has.
 * (No resource here has a default policy of orphaning.)
 */
function shouldOrphanDependents(finalizers: readonly string[], options: DeletePropagationOptions): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  for (const finalizer of finalizers) {
    if (finalizer === FINALIZER_ORPHAN_DEPENDENTS) return true;
    if (finalizer === FINALIZER_DELETE_DEPENDENTS) return false;
  }
  return false;
}

/** Upstream's `shouldDeleteDependents`: Foreground, or the foreground finalizer already set and no option. */
function shouldDeleteDependents(finalizers: readonly string[], options: DeletePropagationOptions): boolean {
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  return finalizers.includes(FINALIZER_DELETE_DEPENDENTS);
}

/**
 * The finalizers a DELETE leaves on an object for the garbage collector (upstream's
 * `deletionFinalizersForGarbageCollection`): both GC finalizers are removed, then `orphan` (Orphan,
 * `orphanDependents: true`) or `foregroundDeletion` (Foreground) added back. `changed` tells whether the
 * set differs from `finalizers`; when it does not, `finalizers` is returned as given.
 */
export function deletionFinalizersForGarbageCollection(
  finalizers: readonly string[],
  options: DeletePropagationOptions,
): { changed: boolean; finalizers: readonly string[] } {
  const next = finalizers.filter((f) => f !== FINALIZER_ORPHAN_DEPENDENTS && f !== FINALIZER_DELETE_DEPENDENTS);
  if (shouldOrphanDependents(finalizers, options)) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (shouldDeleteDependents(finalizers, options)) next.push(FINALIZER_DELETE_DEPENDENTS);
  const before = new Set(finalizers);
  const after = new Set(next);
  const same = before.size === after.size && [...after].every((f) => before.has(f));
  return same ? { changed: false, finalizers } : { changed: true, finalizers: next };
}

/** Sets `metadata.finalizers`, dropping the field when none is left. */
export function setFinalizers(object: KubeObject, finalizers: readonly string[]): void {
  if (finalizers.length > 0) object.metadata.finalizers = [...finalizers];
  else delete object.metadata.finalizers;
}
