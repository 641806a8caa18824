import type { RestClient } from '@kapi/client';

/** One permission the migrator needs, as a SelfSubjectAccessReview's resourceAttributes. */
interface Permission {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
}

interface AccessReview {
  status?: { allowed?: boolean };
}

/** What the migrator asks of the server, given its flags (the rules of the ClusterRole in README.md). */
export function requiredPermissions(options: { trigger: boolean; leaderElect: boolean }): Permission[] {
  const migrations = { group: 'storagemigration.k8s.io', resource: 'storageversionmigrations' };
  const permissions: Permission[] = [
    { verb: 'list', ...migrations },
    { verb: 'watch', ...migrations },
    { verb: 'update', ...migrations, subresource: 'status' },
  ];
  if (options.trigger) {
    permissions.push(
      { verb: 'create', ...migrations },
      { verb: 'delete', ...migrations },
      { verb: 'watch', group: 'internal.apiserver.k8s.io', resource: 'storageversions' },
      { verb: 'create', group: 'migration.k8s.io', resource: 'storagestates' },
      { verb: 'update', group: 'migration.k8s.io', resource: 'storagestates', subresource: 'status' },
    );
  }
  if (options.leaderElect) {
    const leases = { group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system' };
    permissions.push({ verb: 'get', ...leases }, { verb: 'create', ...leases }, { verb: 'update', ...leases });
  }
  return permissions;
}

const describe = (permission: Permission) =>
  `${permission.verb} ${permission.resource}${permission.subresource ? `/${permission.subresource}` : ''}` +
  `${permission.group ? `.${permission.group}` : ''}${permission.namespace ? ` in ${permission.namespace}` : ''}`;

/**
 * Asks the server (SelfSubjectAccessReview) whether the migrator's user has each permission; returns the
 * ones it lacks, described as "verb resource.group", so a badly bound migrator stops at once with a clear
 * error instead of retrying watches it may never open.
 */
export async function missingPermissions(rest: RestClient, permissions: Permission[]): Promise<string[]> {
  const answers = await Promise.all(
    permissions.map((resourceAttributes) =>
      rest.request<AccessReview>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } },
      }),
    ),
  );
  return permissions.filter((_permission, index) => answers[index]?.status?.allowed !== true).map(describe);
}
