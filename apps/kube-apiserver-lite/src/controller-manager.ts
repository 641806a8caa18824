import type { Registry } from 'prom-client';
import type { Lease, ResourceClient, RestClient } from '@kapi/client';
import type { ResourceDefinition } from '@kapi/server';
import type { Interface } from '@kapi/storage';
import { ClusterRoleAggregationController } from './clusterrole-aggregation.js';
import { GarbageCollector } from './garbage-collector/garbage-collector.js';
import { runWhileLeading, type LeaderStatusGauge } from './leader-elected.js';
import { NamespaceController } from './namespace-lifecycle.js';
import { ServiceAccountsController } from './service-accounts/service-accounts-controller.js';

/** The post-start hook that starts campaigning for the controllers' lease. */
export const CONTROLLER_MANAGER_HOOK = 'start-kube-controller-manager';

/** The lease the controllers run under (kube-controller-manager's, in `kube-system`). */
export const CONTROLLER_MANAGER_LEASE = 'kube-controller-manager';

/** What {@link startControllerManager} needs. */
export interface ControllerManagerOptions {
  /** The loopback client. */
  rest: RestClient;
  leases: ResourceClient<Lease>;
  identity: string;
  log(message: string): void;
  /** Every resource served now: built-ins, and the custom resources of established CRDs. */
  resources: () => readonly ResourceDefinition[];
  /** The storage of a served resource in this process, read by the garbage collector (see its options). */
  storageOf: (definition: ResourceDefinition) => { storage: Interface; prefix: string } | undefined;
  enableGarbageCollector: boolean;
  metricsRegistry: Registry;
  status: LeaderStatusGauge;
  /** Resolves once `kube-system` (where the lease lives) exists. */
  systemNamespaces: Promise<void>;
}

/**
 * Runs the controllers upstream runs in kube-controller-manager (namespace, garbage collector, service
 * accounts, cluster role aggregation) while this server holds the `kube-system/kube-controller-manager`
 * lease: in an HA set of replicas one runs them, and another takes over when it stops or loses the lease.
 * Their writes are guarded by uid and resourceVersion, so a handover (two leaders for a moment) is safe.
 */
export function startControllerManager(options: ControllerManagerOptions): { stop(): Promise<void> } {
  const { rest, leases, identity, log, status } = options;
  const after = options.systemNamespaces;
  return runWhileLeading({ leases, identity, log, status, after, name: CONTROLLER_MANAGER_LEASE }, () => {
    const aggregation = new ClusterRoleAggregationController(rest);
    const namespaces = new NamespaceController(rest, () => options.resources().filter((definition) => definition.namespaced));
    const serviceAccounts = new ServiceAccountsController(rest, {
      onError: (namespace, error) => log(`service accounts controller: namespace ${namespace}: ${String(error)}`),
    });
    const collector = options.enableGarbageCollector
      ? new GarbageCollector({ rest, resources: options.resources, storageOf: options.storageOf, log, metricsRegistry: options.metricsRegistry })
      : undefined;
    aggregation.start();
    namespaces.start();
    serviceAccounts.start();
    collector?.start();
    return async () => {
      namespaces.stop();
      await Promise.all([aggregation.stop(), serviceAccounts.stop(), collector?.stop()]);
    };
  });
}
