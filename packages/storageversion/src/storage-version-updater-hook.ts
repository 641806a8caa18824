import { StatusError } from '@kapi/apimachinery';
import { sleep, type Lease, type ResourceClient } from '@kapi/client';
import type { StorageVersion } from './storage-version-api.js';
import type { StorageVersionManager } from './storage-version-manager.js';

/** The upstream post-start hook name. */
export const STORAGE_VERSION_UPDATER_HOOK = 'built-in-resources-storage-version-updater';

/** Options of {@link runStorageVersionUpdater}. */
export interface StorageVersionUpdaterOptions {
  manager: StorageVersionManager;
  /** Client for coordination.k8s.io/v1 leases. */
  leases: ResourceClient<Lease>;
  storageVersions: ResourceClient<StorageVersion>;
  serverID: string;
  /** Label value of identity leases; entries of servers without one are dropped. Default `kube-apiserver`. */
  component?: string;
  /** Re-sync period; default 10 minutes. */
  resyncIntervalMs?: number;
  /** Poll period of step 1; default 100 ms. */
  leasePollMs?: number;
  /** Poll period of step 3; default 1 s. */
  completedPollMs?: number;
  signal?: AbortSignal;
}


/**
 * The post-start hook: (1) wait for this server's identity lease, (2) update the StorageVersions now and
 * every re-sync interval in the background, (3) resolve once the manager completed.
 */
export async function runStorageVersionUpdater(options: StorageVersionUpdaterOptions): Promise<void> {
  const { manager, leases, serverID, signal } = options;
  for (;;) {
    if (signal?.aborted) return;
    try {
      await leases.get('kube-system', serverID);
      break;
    } catch (error) {
      if (!(StatusError.isInstance(error) && error.code === 404)) {
        throw new Error(`failed to wait for apiserver-identity lease ${serverID} to be created: ${(error as Error).message}`);
      }
    }
    await sleep(options.leasePollMs ?? 100);
  }
  const selector = `apiserver.kubernetes.io/identity=${options.component ?? 'kube-apiserver'}`;
  const target = {
    storageVersions: options.storageVersions,
    liveServerIDs: async () => {
      const list = await leases.list('kube-system', { labelSelector: selector });
      return new Set(list.items.map((lease) => lease.metadata.name ?? ''));
    },
  };
  const resync = async () => {
    while (!signal?.aborted) {
      await manager.updateStorageVersions(serverID, target).catch(() => false);
      await sleep(options.resyncIntervalMs ?? 600_000, signal);
    }
  };
  void resync();
  while (!manager.completed()) {
    if (signal?.aborted) return;
    await sleep(options.completedPollMs ?? 1000);
  }
}
