import type { Lease, ResourceClient } from '@kapi/client';
import { LEASE_CONTROLLER_HOOK, LEASE_GC_HOOK, LeaseController, LeaseGarbageCollector } from '@kapi/identity';
import type { GenericAPIServer } from '@kapi/server';
import type { ServerOptions } from './options.js';

/**
 * Feature gate APIServerIdentity (KEP-1965): the post-start hooks that keep this server's identity lease
 * and collect expired ones. Independent of the StorageVersion API, which needs them.
 */
export function addIdentityLeaseHooks(
  server: GenericAPIServer,
  context: {
    leases: () => ResourceClient<Lease>;
    identity: string;
    options: Pick<ServerOptions, 'hostnameOverride' | 'identityLeaseDurationSeconds' | 'identityLeaseRenewIntervalSeconds'>;
    /** Stop functions run on shutdown. */
    controllers: Array<() => Promise<void> | void>;
  },
): void {
  const { leases, identity, options, controllers } = context;
  server.addPostStartHook(LEASE_CONTROLLER_HOOK, async () => {
    const controller = new LeaseController({
      leases: leases(),
      identity,
      hostname: options.hostnameOverride,
      leaseDurationSeconds: options.identityLeaseDurationSeconds,
      renewIntervalSeconds: options.identityLeaseRenewIntervalSeconds,
    });
    controllers.push(() => controller.stop());
    await controller.start();
  });
  server.addPostStartHook(LEASE_GC_HOOK, () => {
    const collector = new LeaseGarbageCollector({ leases: leases(), intervalSeconds: options.identityLeaseDurationSeconds });
    collector.start();
    controllers.push(() => collector.stop());
    return Promise.resolve();
  });
}
