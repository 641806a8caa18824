/** Test helpers of the storage-version voting tests: HorizontalPodAutoscalers voted on between replicas on one etcd. */

/** The etcd key holding the selected storage version of HPAs. */
export const HPA_SELECTION_KEY = '/registry/storage-version-selection/autoscaling.horizontalpodautoscalers';

/** Flags of a replica on `etcdEndpoint` named `hostname`, voting for `preferred` (e.g. `autoscaling/v1`) as the HPA storage version. */
export const voteArgs = (etcdEndpoint: string, hostname: string, preferred: string): string[] => [
  '--storage=etcd',
  `--etcd-servers=${etcdEndpoint}`,
  `--hostname-override=${hostname}`,
  '--storage-version-mode=vote',
  `--storage-version=autoscaling/horizontalpodautoscalers=${preferred}`,
  '--identity-lease-duration-seconds=30',
  '--identity-lease-renew-interval-seconds=1',
];

/** An autoscaling/v2 HPA `name` scaling a Deployment of the same name up to `max` replicas. */
export const hpa = (name: string, max: number) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, maxReplicas: max },
});
