import { storageVersionHash } from '@kapi/apimachinery';

/**
 * The discovery `storageVersionHash` of a resource's selected storage version, to publish instead of the
 * hash of the server's own preference. `selectedVersion` is the version within `group` (`v2`); an
 * `apps/v2` form is accepted too.
 */
export function selectedStorageVersionHash(group: string, kind: string, selectedVersion: string): string {
  const slash = selectedVersion.lastIndexOf('/');
  const version = slash < 0 ? selectedVersion : selectedVersion.slice(slash + 1);
  return storageVersionHash(group, version, kind);
}
