import { apiregistrationGroup, type APIService } from './apiservice-kind.js';

/** Label of the APIServices the server creates for its own group/versions on start. */
export const automanagedLabel = 'kube-aggregator.kubernetes.io/automanaged';

/** Upstream's priorities of built-in group/versions (group priority minimum, version priority). */
const builtInPriorities: Record<string, [number, number]> = {
  '/v1': [18000, 1],
  'apiregistration.k8s.io/v1': [18000, 15],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v2': [17500, 30],
  'autoscaling/v1': [17500, 15],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
  'internal.apiserver.k8s.io/v1alpha1': [16000, 9],
  'storagemigration.k8s.io/v1alpha1': [15800, 9],
  // Not in the reference's table (it predates v1beta1): a beta's usual place, above the alpha.
  'storagemigration.k8s.io/v1beta1': [15800, 12],
};

/** What upstream gives the APIServices of custom resource groups (crdRegistrationController): below every built-in group. */
export const customResourcePriority: [number, number] = [1000, 100];

/**
 * The `groupPriorityMinimum` upstream gives a built-in group (the highest of its versions'), or undefined
 * for a group it has none for. Discovery lists groups by it, highest first.
 */
export function builtInGroupPriority(group: string): number | undefined {
  let highest: number | undefined;
  for (const [groupVersion, [priority]] of Object.entries(builtInPriorities)) {
    if (groupVersion.slice(0, groupVersion.lastIndexOf('/')) === group) highest = Math.max(highest ?? priority, priority);
  }
  return highest;
}

/**
 * The local APIServices (no `spec.service`: served by this server) for the given group/versions, with
 * upstream's priorities and the `automanaged: onstart` label. Group/versions upstream has no priority
 * for are skipped, as upstream does, except that `extraPriorities` can supply them.
 */
export function localAPIServices(
  groupVersions: ReadonlyArray<{ group: string; version: string }>,
  extraPriorities: Record<string, [number, number]> = {},
): APIService[] {
  const seen = new Set<string>();
  const services: APIService[] = [];
  for (const { group, version } of groupVersions) {
    const key = `${group}/${version}`;
    const priority = extraPriorities[key] ?? builtInPriorities[key];
    if (!priority || seen.has(key)) continue;
    seen.add(key);
    services.push({
      apiVersion: `${apiregistrationGroup}/v1`,
      kind: 'APIService',
      metadata: { name: `${version}.${group}`, labels: { [automanagedLabel]: 'onstart' } },
      spec: { group, version, groupPriorityMinimum: priority[0], versionPriority: priority[1] },
    });
  }
  return services;
}
