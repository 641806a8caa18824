import type { KindDefinition } from '@kapi/apimachinery';
import { storageStateKind, storageStateResource, storageVersionMigrationKind, storageVersionMigrationResource } from '@kapi/migrator';
import type { ResourceDefinition } from '@kapi/server';

/** storagemigration.k8s.io/v1beta1 StorageVersionMigration and migration.k8s.io/v1alpha1 StorageState. */
export const migrationKinds: KindDefinition[] = [storageVersionMigrationKind, storageStateKind];

export const migrationResources: ResourceDefinition[] = [storageVersionMigrationResource, storageStateResource];
