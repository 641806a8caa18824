import { Counter, Gauge, type Registry } from 'prom-client';
import type { MigrationObserver, StorageVersionMigration } from '@kapi/migrator';

const labelsOf = (migration: StorageVersionMigration) => ({
  group: migration.spec?.resource?.group ?? '',
  resource: migration.spec?.resource?.resource ?? '',
});

/**
 * The migrator's metrics by group and resource (KEP-4192's names): objects written back, objects left in
 * the running migration, and finished migrations by status (Succeeded, Failed).
 */
export function migratorMetrics(registry: Registry): MigrationObserver {
  const migrated = new Counter({
    name: 'storage_migrator_migrated_objects_total',
    help: 'Objects the storage version migrator wrote back, by group and resource.',
    labelNames: ['group', 'resource'],
    registers: [registry],
  });
  const remaining = new Gauge({
    name: 'storage_migrator_remaining_objects',
    help: 'Objects left to visit in the running migration of a resource.',
    labelNames: ['group', 'resource'],
    registers: [registry],
  });
  const migrations = new Counter({
    name: 'storage_migrator_migrations_total',
    help: 'Finished storage version migrations by group, resource and status (Succeeded, Failed).',
    labelNames: ['group', 'resource', 'status'],
    registers: [registry],
  });
  return {
    onObjectMigrated: (migration) => migrated.inc(labelsOf(migration)),
    onPage: (migration, progress) => remaining.set(labelsOf(migration), progress.remainingObjects ?? 0),
    onFinished: (migration, outcome) => {
      if (outcome === 'Succeeded') remaining.set(labelsOf(migration), 0);
      migrations.inc({ ...labelsOf(migration), status: outcome });
    },
  };
}
