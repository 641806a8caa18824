import type { StorageVersionInfo } from '@kapi/apimachinery';
import type { InstalledResource } from './discovery/index.js';

/**
 * What each persisted resource encodes and decodes, for the StorageVersion API (KEP-2339): the storage
 * version, and the served versions as decodable.
 */
export function storageVersionInfosOf(installed: readonly InstalledResource[]): StorageVersionInfo[] {
  return installed.filter(({ definition }) => !definition.virtual).map(({ definition }) => {
    const encoding = definition.storageVersion ?? definition.versions[0] ?? '';
    const decodable = definition.versions.includes(encoding) ? definition.versions : [encoding, ...definition.versions];
    return {
      groupResource: { group: definition.group, resource: definition.resource },
      kind: definition.kind,
      encodingVersion: { group: definition.group, version: encoding },
      decodableVersions: decodable.map((version) => ({ group: definition.group, version })),
    };
  });
}
