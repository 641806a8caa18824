import type { Lease, ResourceClient, RestClient } from '@kapi/client';
import { MigrationController, MigrationTrigger, type MigrationObserver } from '@kapi/migrator';
import { runWhileLeading, type LeaderStatusGauge } from './leader-elected.js';

/** What {@link startStorageVersionMigrator} needs. */
export interface StorageVersionMigratorOptions {
  rest: RestClient;
  leases: ResourceClient<Lease>;
  identity: string;
  log(message: string): void;
  /** Metrics of the migrations this server runs. */
  observer?: MigrationObserver;
  /** `leader_election_master_status{name="storage-version-migrator"}`. */
  status?: LeaderStatusGauge;
  /** Resolves once `kube-system` (where the lease lives) exists. */
  systemNamespaces?: Promise<void>;
}

/**
 * Runs the storage version migrator (migration controller and trigger) in this server while it holds
 * the `kube-system/storage-version-migrator` lease, so one replica migrates at a time.
 *
 * Its page reads and writes are the loopback client's requests, served in process (no TLS, socket or
 * HTTP parsing at either end); only its informer's watch uses a connection. (Over HTTP/2 to itself, node
 * keeps each stream's objects on both ends reachable from its native handle until a full collection, so
 * every write would be copied into the old generation.) The standalone migrator keeps HTTP/2.
 */
export function startStorageVersionMigrator(options: StorageVersionMigratorOptions): { stop(): Promise<void> } {
  const { leases, identity, log, status, systemNamespaces } = options;
  const name = 'storage-version-migrator';
  return runWhileLeading({ leases, identity, log, name, ...(status ? { status } : {}), ...(systemNamespaces ? { after: systemNamespaces } : {}) }, () => {
    const observer: MigrationObserver = {
      ...options.observer,
      onInterrupted: (migration, error, delayMs) =>
        log(`storage version migration ${migration} interrupted (${error instanceof Error ? error.message : String(error)}); running it again in ${delayMs / 1000} s`),
    };
    // The rate upstream's shipped migrator manifest sets (--kube-api-qps=40 --kube-api-burst=1000), not
    // client-go's 5/10: at 5 writes a second the ~25 first-start migrations of the built-in resources
    // take ~17 s, and a CRD's migration waits behind them.
    const controller = new MigrationController({ rest: options.rest, http2: false, qps: 40, burst: 1000, observer });
    const trigger = new MigrationTrigger({ rest: options.rest, log });
    controller.start();
    void trigger.start();
    return async () => {
      await Promise.all([controller.stop(), trigger.stop()]);
    };
  });
}
