import { Type, kindSchema, type KindDefinition, type KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';

/** migration.k8s.io, the kube-storage-version-migrator's group. */
export const MIGRATION_GROUP = 'migration.k8s.io';
/** The served version of {@link MIGRATION_GROUP}. */
export const MIGRATION_VERSION = 'v1alpha1';
/** The persisted-hash sentinel: stored objects may be in any version. */
export const UNKNOWN_STORAGE_VERSION_HASH = 'Unknown';

/** migration.k8s.io/v1alpha1 StorageState: which storage versions stored objects of a resource may be in. */
export interface StorageState extends KubeObject {
  spec?: { resource?: { group?: string; resource?: string } };
  status?: {
    /** Versions stored objects might still use; `["Unknown"]` until a migration succeeds. */
    persistedStorageVersionHashes?: string[];
    currentStorageVersionHash?: string;
    lastHeartbeatTime?: string;
  };
}

/** `<resource>.<group>`, plain `<resource>` for the core group (the sigs migrator's naming). */
export function storageStateName(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

const storageStateSchema = kindSchema({
  group: MIGRATION_GROUP,
  version: MIGRATION_VERSION,
  kind: 'StorageState',
  spec: Type.Object({
    resource: Type.Object({ group: Type.Optional(Type.String()), resource: Type.String() }),
  }),
  status: Type.Object({
    persistedStorageVersionHashes: Type.Optional(Type.Array(Type.String())),
    currentStorageVersionHash: Type.Optional(Type.String()),
    lastHeartbeatTime: Type.Optional(Type.String({ format: 'date-time' })),
  }),
});

/** Scheme registration of StorageState. */
export const storageStateKind: KindDefinition = {
  group: MIGRATION_GROUP,
  version: MIGRATION_VERSION,
  kind: 'StorageState',
  schema: storageStateSchema,
};

/** The storagestates resource (cluster-scoped, with /status). */
export const storageStateResource: ResourceDefinition = {
  group: MIGRATION_GROUP,
  resource: 'storagestates',
  kind: 'StorageState',
  namespaced: false,
  versions: [MIGRATION_VERSION],
  subresources: { status: true },
  printerColumns: [
    { name: 'Current', type: 'string', jsonPath: '.status.currentStorageVersionHash' },
    { name: 'Persisted', type: 'string', jsonPath: '.status.persistedStorageVersionHashes' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
