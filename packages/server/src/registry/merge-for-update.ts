import type { FieldError, KubeObject } from '@kapi/apimachinery';
import { copyObject, specChanged } from './object-meta.js';

/**
 * Combines a requested update (hub version) with the stored object as upstream's strategies do:
 * with a status subresource the main resource keeps the stored status and `/status` keeps everything
 * but status; uid, creationTimestamp and deletion fields are immutable; generation (when `tracksGeneration`
 * is not false) moves when anything besides metadata and status changes, else it keeps the stored value. managedFields are those of `requested` when the field manager
 * tracked the write; otherwise absent managedFields keep the stored ones. Returns the new object.
 */
export function mergeForUpdate(
  requested: KubeObject,
  current: KubeObject,
  options: { statusSubresource: boolean; subresource: string; managedFieldsTracked?: boolean; tracksGeneration?: boolean },
): KubeObject {
  let hub = requested;
  if (options.statusSubresource) {
    if (options.subresource === 'status') {
      hub = { ...copyObject(current), status: requested['status'] };
      if (hub['status'] === undefined) delete hub['status'];
    } else if (current['status'] === undefined) delete hub['status'];
    else hub['status'] = copyObject(current)['status'];
  }
  const next = hub.metadata;
  const previous = current.metadata;
  next.uid = previous.uid ?? '';
  next.creationTimestamp = previous.creationTimestamp ?? '';
  if (previous.deletionTimestamp) next.deletionTimestamp = previous.deletionTimestamp;
  else delete next.deletionTimestamp;
  if (previous.deletionGracePeriodSeconds !== undefined)
    next.deletionGracePeriodSeconds = previous.deletionGracePeriodSeconds;
  else delete next.deletionGracePeriodSeconds;
  if (options.tracksGeneration !== false) next.generation = (previous.generation ?? 1) + (specChanged(current, hub) ? 1 : 0);
  else if (previous.generation !== undefined) next.generation = previous.generation;
  else delete next.generation;
  if (options.managedFieldsTracked) {
    // The field manager decided the managedFields of the request (also for /status).
    const recorded = requested.metadata.managedFields;
    if (recorded === undefined) delete next.managedFields;
    else next.managedFields = recorded;
  } else if (next.managedFields === undefined && previous.managedFields !== undefined)
    next.managedFields = previous.managedFields;
  delete next.resourceVersion;
  return hub;
}

/** Upstream's rule: an object being deleted may lose finalizers but not gain new ones. */
export function validateFinalizersWhileDeleting(next: KubeObject, current: KubeObject): FieldError[] {
  if (!current.metadata.deletionTimestamp) return [];
  const existing = current.metadata.finalizers ?? [];
  const added = (next.metadata.finalizers ?? []).filter((finalizer) => !existing.includes(finalizer));
  if (added.length === 0) return [];
  return [
    {
      field: 'metadata.finalizers',
      type: 'FieldValueForbidden',
      detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((item) => JSON.stringify(item)).join(', ')}}`,
    },
  ];
}
