import type { KubeObject } from '@kapi/apimachinery';
import { StorageError, type Preconditions } from '@kapi/storage';

/** A delete's preconditions against the current object: a mismatched uid or resourceVersion fails it (a storage InvalidObject error). */
export function checkPreconditions(key: string, current: KubeObject, preconditions: Preconditions): void {
  if (preconditions.uid !== undefined && preconditions.uid !== current.metadata.uid) {
    throw StorageError.invalidObject(
      key,
      0,
      `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
    );
  }
  if (
    preconditions.resourceVersion !== undefined &&
    preconditions.resourceVersion !== current.metadata.resourceVersion
  ) {
    throw StorageError.invalidObject(
      key,
      0,
      `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
    );
  }
}
