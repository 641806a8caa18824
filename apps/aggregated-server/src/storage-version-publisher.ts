import { hostname } from 'node:os';
import { ResourceClient, type Lease, type RestClient } from '@kapi/client';
import { LeaseController, apiserverIdentity } from '@kapi/identity';
import {
  STORAGE_VERSION_GROUP,
  STORAGE_VERSION_VERSION,
  StorageVersionManager,
  runStorageVersionUpdater,
  type StorageVersion,
} from '@kapi/storageversion';
import { wardleGroup, wardleVersions, type WardleVersion } from './wardle-scheme.js';

/** The component this server's identity is derived from (so it differs from the main server's on one host). */
export const identityComponent = 'wardle-apiserver';
/**
 * The identity-lease label value: the main server's lease and StorageVersion garbage collectors only count
 * servers whose lease carries `apiserver.kubernetes.io/identity=kube-apiserver`; with another value they
 * would drop this server's StorageVersion entries as those of a dead server.
 */
const leaseComponent = 'kube-apiserver';

/** A running publisher; `stop()` ends the lease renewal and the StorageVersion re-sync. */
export interface StorageVersionPublisher {
  identity: string;
  manager: StorageVersionManager;
  /** Resolves once every StorageVersion holds this server's entry. */
  published: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Publishes this server on the main server as the KEP-2339 machinery expects of an apiserver: an identity
 * Lease in kube-system (renewed), then a StorageVersion entry (`wardle.example.com.flunders`,
 * `wardle.example.com.fischers`) with its encoding, decodable and served versions, re-synced periodically.
 */
export function publishStorageVersions(main: RestClient, storageVersion: WardleVersion): StorageVersionPublisher {
  const host = hostname();
  const identity = apiserverIdentity(host, identityComponent);
  const leases = new ResourceClient<Lease>(main, { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true });
  const storageVersions = new ResourceClient<StorageVersion>(main, {
    group: STORAGE_VERSION_GROUP,
    version: STORAGE_VERSION_VERSION,
    resource: 'storageversions',
    namespaced: false,
  });
  const manager = new StorageVersionManager();
  const versions = wardleVersions.map((version) => `${wardleGroup}/${version}`);
  for (const resource of ['flunders', 'fischers']) {
    manager.addResourceInfo({
      groupResource: { group: wardleGroup, resource },
      encodingVersion: `${wardleGroup}/${storageVersion}`,
      decodableVersions: versions,
      servedVersions: versions,
    });
  }
  const lease = new LeaseController({ leases, identity, hostname: host, component: leaseComponent });
  const abort = new AbortController();
  const published = lease
    .start()
    .then(() => runStorageVersionUpdater({ manager, leases, storageVersions, serverID: identity, component: leaseComponent, signal: abort.signal }));
  return {
    identity,
    manager,
    published,
    async stop() {
      abort.abort();
      await lease.stop();
    },
  };
}
