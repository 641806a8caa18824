import { Type, findCondition, isQualifiedName, kindSchema, type Condition, type FieldError, type KindDefinition, type KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';

/** storagemigration.k8s.io, the in-tree migration API (KEP-4192). */
export const STORAGE_MIGRATION_GROUP = 'storagemigration.k8s.io';
/** The served version of {@link STORAGE_MIGRATION_GROUP}. */
export const STORAGE_MIGRATION_VERSION = 'v1beta1';

/** Condition types of a migration. */
export const MIGRATION_RUNNING = 'Running';
export const MIGRATION_SUCCEEDED = 'Succeeded';
export const MIGRATION_FAILED = 'Failed';

/** Progress of a migration (kapi's addition to the upstream status). */
export interface MigrationProgress {
  /** Objects written back (rewritten by storage only if stale). */
  migratedObjects: number;
  /** Objects left alone: changed or deleted meanwhile (409/404), or newer than the checkpoint. */
  skippedObjects: number;
  /** Objects left to visit, from the last page's `remainingItemCount` when the server gives it. */
  remainingObjects?: number;
  /** Whole percent of the objects visited so far (100 when done); absent while the remainder is unknown. */
  percent?: number;
  /** The list continue token after the last finished page: a restarted migrator resumes there. */
  continueToken?: string;
}

/** storagemigration.k8s.io/v1beta1 StorageVersionMigration (cluster-scoped, with /status). */
export interface StorageVersionMigration extends KubeObject {
  spec?: { resource?: { group?: string; resource?: string } };
  status?: {
    conditions?: Condition[];
    /** The checkpoint: the resource's list resourceVersion when the migration started. */
    resourceVersion?: string;
    progress?: MigrationProgress;
  };
}

// Field descriptions are upstream's (kubernetes/kubernetes api/openapi-spec/v3/
// apis__storagemigration.k8s.io__v1beta1_openapi.json), verbatim, for `kubectl explain`. Upstream's
// GroupResource has none for group and resource; status.progress is kapi's own.

const conditionSchema = Type.Object(
  {
    type: Type.String({ description: 'type of condition in CamelCase or in foo.example.com/CamelCase.' }),
    status: Type.String({
      enum: ['True', 'False', 'Unknown'],
      description: 'status of the condition, one of True, False, Unknown.',
    }),
    observedGeneration: Type.Optional(
      Type.Integer({
        format: 'int64',
        description:
          'observedGeneration represents the .metadata.generation that the condition was set based upon. For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date with respect to the current state of the instance.',
      }),
    ),
    lastTransitionTime: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'lastTransitionTime is the last time the condition transitioned from one status to another. This should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.',
      }),
    ),
    reason: Type.String({
      description:
        "reason contains a programmatic identifier indicating the reason for the condition's last transition. Producers of specific condition types may define expected values and meanings for this field, and whether the values are considered a guaranteed API. The value should be a CamelCase string. This field may not be empty.",
    }),
    message: Type.String({
      description:
        'message is a human readable message indicating details about the transition. This may be an empty string.',
    }),
  },
  { description: 'Condition contains details for one aspect of the current state of this API Resource.' },
);

const migrationSchema = kindSchema({
  group: STORAGE_MIGRATION_GROUP,
  version: STORAGE_MIGRATION_VERSION,
  kind: 'StorageVersionMigration',
  description: 'StorageVersionMigration represents a migration of stored data to the latest storage version.',
  spec: Type.Object(
    {
      resource: Type.Object(
        { group: Type.Optional(Type.String()), resource: Type.String() },
        {
          description:
            'The resource that is being migrated. The migrator sends requests to the endpoint serving the resource. Immutable.',
        },
      ),
    },
    { description: 'Specification of the migration.' },
  ),
  status: Type.Object(
    {
      conditions: Type.Optional(
        Type.Array(conditionSchema, {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          'x-kubernetes-patch-merge-key': 'type',
          'x-kubernetes-patch-strategy': 'merge',
          description: "The latest available observations of the migration's current state.",
        }),
      ),
      resourceVersion: Type.Optional(
        Type.String({
          description:
            'ResourceVersion to compare with the GC cache for performing the migration. This is the current resource version of given group, version and resource when kube-controller-manager first observes this StorageVersionMigration resource.',
        }),
      ),
      progress: Type.Optional(
        Type.Object({
          migratedObjects: Type.Integer({ format: 'int64' }),
          skippedObjects: Type.Integer({ format: 'int64' }),
          remainingObjects: Type.Optional(Type.Integer({ format: 'int64' })),
          percent: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
          continueToken: Type.Optional(Type.String()),
        }),
      ),
    },
    { description: 'Status of the migration.' },
  ),
});

const isTrue = (conditions: Condition[] | undefined, type: string) => findCondition(conditions, type)?.status === 'True';

const conditionReason = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/**
 * Upstream's checks of every migration: a resource named (spec is no pointer upstream, so a migration
 * without one is refused), condition types qualified names and reasons CamelCase-like.
 */
export function validateMigration(object: KubeObject): FieldError[] {
  const migration = object as StorageVersionMigration;
  const errors: FieldError[] = [];
  if (!migration.spec?.resource?.resource) errors.push({ field: 'spec.resource.resource', type: 'FieldValueRequired', detail: '' });
  (migration.status?.conditions ?? []).forEach((condition, index) => {
    for (const message of isQualifiedName(condition.type ?? ''))
      errors.push({ field: `status.conditions[${index}].type`, type: 'FieldValueInvalid', value: condition.type, detail: message });
    if (condition.reason && !conditionReason.test(condition.reason)) {
      errors.push({
        field: `status.conditions[${index}].reason`,
        type: 'FieldValueInvalid',
        value: condition.reason,
        detail: `a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (regex used for validation is '${conditionReason.source.slice(1, -1)}')`,
      });
    }
  });
  return errors;
}

/** Upstream's migration validation: spec immutable; status.resourceVersion an integer, immutable once set; terminal conditions exclusive and final. */
export function validateMigrationUpdate(object: KubeObject, old: KubeObject): FieldError[] {
  const errors: FieldError[] = validateMigration(object);
  const next = object as StorageVersionMigration;
  const previous = old as StorageVersionMigration;
  if (JSON.stringify(next.spec ?? {}) !== JSON.stringify(previous.spec ?? {})) {
    errors.push({ field: 'spec', type: 'FieldValueInvalid', value: next.spec, detail: 'field is immutable' });
  }
  const checkpoint = next.status?.resourceVersion;
  if (checkpoint !== undefined && !/^\d+$/.test(checkpoint)) {
    errors.push({ field: 'status.resourceVersion', type: 'FieldValueInvalid', value: checkpoint, detail: 'resource version has to be a non-negative integer' });
  }
  const oldCheckpoint = previous.status?.resourceVersion;
  if (oldCheckpoint !== undefined && oldCheckpoint !== '' && checkpoint !== oldCheckpoint) {
    errors.push({ field: 'status.resourceVersion', type: 'FieldValueInvalid', value: checkpoint, detail: 'field is immutable' });
  }
  const conditions = next.status?.conditions;
  if (isTrue(conditions, MIGRATION_SUCCEEDED) && isTrue(conditions, MIGRATION_FAILED)) {
    errors.push({ field: 'status.conditions', type: 'FieldValueInvalid', value: MIGRATION_FAILED, detail: 'Both success and failed conditions cannot be true at the same time' });
  }
  if (isTrue(conditions, MIGRATION_RUNNING) && (isTrue(conditions, MIGRATION_SUCCEEDED) || isTrue(conditions, MIGRATION_FAILED))) {
    errors.push({ field: 'status.conditions', type: 'FieldValueInvalid', value: MIGRATION_RUNNING, detail: 'Running condition cannot be true when success or failed condition is true' });
  }
  for (const type of [MIGRATION_SUCCEEDED, MIGRATION_FAILED]) {
    if (isTrue(previous.status?.conditions, type) && !isTrue(conditions, type)) {
      errors.push({ field: 'status.conditions', type: 'FieldValueInvalid', value: type, detail: `${type} condition cannot be set to false once it is true` });
    }
  }
  return errors;
}

/** Scheme registration of StorageVersionMigration. */
export const storageVersionMigrationKind: KindDefinition = {
  group: STORAGE_MIGRATION_GROUP,
  version: STORAGE_MIGRATION_VERSION,
  kind: 'StorageVersionMigration',
  schema: migrationSchema,
};

/** The storageversionmigrations resource, with the columns `kubectl get` shows. */
export const storageVersionMigrationResource: ResourceDefinition = {
  group: STORAGE_MIGRATION_GROUP,
  resource: 'storageversionmigrations',
  kind: 'StorageVersionMigration',
  namespaced: false,
  versions: [STORAGE_MIGRATION_VERSION],
  subresources: { status: true },
  // Upstream's strategy for this kind does not keep metadata.generation.
  tracksGeneration: false,
  printerColumns: [
    { name: 'Group', type: 'string', jsonPath: '.spec.resource.group' },
    { name: 'Resource', type: 'string', jsonPath: '.spec.resource.resource' },
    { name: 'Running', type: 'string', jsonPath: '.status.conditions[?(@.type=="Running")].status' },
    { name: 'Succeeded', type: 'string', jsonPath: '.status.conditions[?(@.type=="Succeeded")].status' },
    { name: 'Failed', type: 'string', jsonPath: '.status.conditions[?(@.type=="Failed")].status' },
    { name: 'Migrated', type: 'integer', jsonPath: '.status.progress.migratedObjects' },
    { name: 'Remaining', type: 'integer', jsonPath: '.status.progress.remainingObjects' },
    {
      name: 'Progress',
      type: 'string',
      jsonPath: '.status.progress.percent',
      description: 'Objects visited of all, in percent',
      cell: (object) => {
        const percent = (object as StorageVersionMigration).status?.progress?.percent;
        return percent === undefined ? null : `${percent}%`;
      },
    },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  strategy: { validate: validateMigration, validateUpdate: validateMigrationUpdate },
};
