export type { StorageVersionMigration, MigrationProgress } from './storage-version-migration-api.js';
export {
  STORAGE_MIGRATION_GROUP,
  STORAGE_MIGRATION_VERSION,
  MIGRATION_RUNNING,
  MIGRATION_SUCCEEDED,
  MIGRATION_FAILED,
  storageVersionMigrationKind,
  storageVersionMigrationResource,
  validateMigration,
  validateMigrationUpdate,
} from './storage-version-migration-api.js';
export type { StorageState } from './storage-state-api.js';
export {
  MIGRATION_GROUP,
  MIGRATION_VERSION,
  UNKNOWN_STORAGE_VERSION_HASH,
  storageStateName,
  storageStateKind,
  storageStateResource,
} from './storage-state-api.js';
export type { MigrationObserver, MigrationRunContext } from './migration-runner.js';
export type { PageItem } from './page-reader.js';
export { runMigration, isFinished, isSkipped, migrationClient, migrationWrite } from './migration-runner.js';
export type { MigrationControllerOptions } from './migration-controller.js';
export { MigrationController } from './migration-controller.js';
export type { BackoffOptions } from './retry.js';
export { isRetriable, retryAfterMs, withRetry, defaultBackoff } from './retry.js';
export { TokenBucket } from './token-bucket.js';
export type { DiscoveredResource } from './discovery.js';
export { discoverResource } from './discovery.js';
export type { MigrationTriggerOptions } from './migration-trigger.js';
export { MigrationTrigger, TRIGGER_ENCODING_VERSION_ANNOTATION, TRIGGER_STORAGE_VERSION_RV_ANNOTATION } from './migration-trigger.js';
