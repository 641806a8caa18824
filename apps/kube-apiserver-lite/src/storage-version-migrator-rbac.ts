import type { KubeObject } from '@kapi/apimachinery';

const group = 'rbac.authorization.k8s.io';
const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]) => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const bootstrapMetadata = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

/** Upstream's name of the migrator's controller role and binding (`system:controller:<controller>`). */
export const STORAGE_VERSION_MIGRATOR_ROLE = 'system:controller:storage-version-migrator-controller';
/** The service account (in kube-system) the standalone migrator runs as. */
export const STORAGE_VERSION_MIGRATOR_SERVICE_ACCOUNT = 'storage-version-migrator-controller';

/**
 * The storage version migrator's least-privilege ClusterRole and its binding to the
 * `kube-system/storage-version-migrator-controller` service account: read and no-op write of the migrated
 * resources (which include its own `storageversionmigrations/status`, StorageStates and CRD status, where
 * `storedVersions` is pruned), watches of migrations and StorageVersions, the creates and deletes of the
 * trigger, and its leader-election lease. No `create` on the migrated resources, no `delete` on them, no RBAC escalation.
 */
export function storageVersionMigratorRbacObjects(): { clusterRoles: KubeObject[]; clusterRoleBindings: KubeObject[] } {
  return {
    clusterRoles: [
      {
        apiVersion: `${group}/v1`,
        kind: 'ClusterRole',
        metadata: bootstrapMetadata(STORAGE_VERSION_MIGRATOR_ROLE),
        rules: [
          // Any resource can be migrated; `*` also covers the status subresources the migrator updates.
          rule(['get', 'list', 'update', 'patch'], ['*'], ['*']),
          rule(['watch', 'create', 'delete'], ['storagemigration.k8s.io'], ['storageversionmigrations']),
          rule(['create'], ['migration.k8s.io'], ['storagestates']),
          rule(['watch'], ['internal.apiserver.k8s.io'], ['storageversions']),
          rule(['create'], ['coordination.k8s.io'], ['leases']),
        ],
      },
    ],
    clusterRoleBindings: [
      {
        apiVersion: `${group}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: bootstrapMetadata(STORAGE_VERSION_MIGRATOR_ROLE),
        roleRef: { apiGroup: group, kind: 'ClusterRole', name: STORAGE_VERSION_MIGRATOR_ROLE },
        subjects: [{ kind: 'ServiceAccount', name: STORAGE_VERSION_MIGRATOR_SERVICE_ACCOUNT, namespace: 'kube-system' }],
      },
    ],
  };
}
