import { LeaderElector, type Lease, type ResourceClient, type RestClient } from '@kapi/client';
import { MigrationController, MigrationTrigger, type MigrationObserver } from '@kapi/migrator';

/** What {@link startStorageVersionMigrator} needs. */
export interface StorageVersionMigratorOptions {
  rest: RestClient;
  leases: ResourceClient<Lease>;
  identity: string;
  log(message: string): void;
  /** Metrics of the migrations this server runs. */
  observer?: MigrationObserver;
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
  const abort = new AbortController();
  let current: { controller: MigrationController; trigger: MigrationTrigger } | undefined;
  const stopCurrent = async () => {
    const running = current;
    current = undefined;
    if (running) await Promise.all([running.controller.stop(), running.trigger.stop()]);
  };
  const elector = new LeaderElector({
    leases: options.leases,
    namespace: 'kube-system',
    name: 'storage-version-migrator',
    identity: options.identity,
    onStartedLeading: (signal) => {
      const controller = new MigrationController({ rest: options.rest, http2: false, ...(options.observer ? { observer: options.observer } : {}) });
      const trigger = new MigrationTrigger({ rest: options.rest, log: options.log });
      current = { controller, trigger };
      controller.start();
      void trigger.start();
      signal.addEventListener('abort', () => void stopCurrent(), { once: true });
    },
  });
  const running = elector.run(abort.signal);
  return {
    stop: async () => {
      abort.abort();
      await running;
      await stopCurrent();
    },
  };
}
