import type { GroupResource, Scheme } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { Store, type Codec, type Interface, type KVBackend } from '@kapi/storage';
import {
  StorageVersionVoter,
  VOTING_GROUP,
  VOTING_VERSION,
  conditionedBackend,
  storageVersionVoteKind,
  voteObjectsFromStorage,
} from '@kapi/storageversion';

/** What `--storage-version-mode=vote` adds to one server. */
export interface VotingSetup {
  voter: StorageVersionVoter;
  /** True for the resources whose storage version is voted on (those served in more than one version). */
  applies(definition: ResourceDefinition): boolean;
  /**
   * The storage of a voted resource: codec follows the selection; every write is conditioned on it.
   * `resourceCodec` is the server's codec of the resource, which a resource converted by its
   * `converter` (a CRD's conversion webhook) keeps: its objects arrive already at the selection.
   */
  storageFor(definition: ResourceDefinition, prefix: string, resourceCodec: Codec): { kv: KVBackend; codec: Codec };
}

const grOf = (definition: ResourceDefinition): GroupResource => ({ group: definition.group, resource: definition.resource });

/**
 * Voting mode (seed 001): a voter over the server's own storage (vote objects and identity leases read
 * directly, so voting needs no loopback request and never waits on the write barrier).
 */
export function setUpVoting(options: {
  scheme: Scheme;
  kv: KVBackend;
  keyPrefix: string;
  identity: string;
  definitions: ResourceDefinition[];
}): VotingSetup {
  const { scheme, kv, keyPrefix } = options;
  scheme.addKind(storageVersionVoteKind);
  const voteStore: Interface = new Store({
    kv,
    codec: scheme.codecFor({ group: VOTING_GROUP, kind: 'StorageVersion', encodingVersion: VOTING_VERSION }),
  });
  const leaseStore: Interface = new Store({
    kv,
    codec: scheme.codecFor({ group: 'coordination.k8s.io', kind: 'Lease', encodingVersion: 'v1' }),
  });
  const voter = new StorageVersionVoter({
    apiServerID: options.identity,
    votes: voteObjectsFromStorage(voteStore, `${keyPrefix}/kube-apiserver.internal.k8s.io/storageversions`),
    liveServerIDs: async () => {
      const list = await leaseStore.getList(`${keyPrefix}/leases/kube-system/`, { recursive: true });
      return new Set(
        list.items
          .filter((lease) => lease.metadata.labels?.['apiserver.kubernetes.io/identity'] === 'kube-apiserver')
          .map((lease) => lease.metadata.name ?? ''),
      );
    },
    kv,
    keyPrefix,
  });
  const applies = (definition: ResourceDefinition) => definition.versions.length > 1;
  for (const definition of options.definitions.filter(applies)) {
    voter.register({
      groupResource: grOf(definition),
      preferredVersion: definition.storageVersion ?? definition.versions[0] ?? '',
      decodableVersions: definition.versions,
    });
  }
  return {
    voter,
    applies,
    storageFor(definition, prefix, resourceCodec) {
      // Registered (again) here too: a custom resource is installed after setup, and its codec needs this
      // server's preference until its vote selects a version (built-ins re-register the same).
      voter.register({
        groupResource: grOf(definition),
        preferredVersion: definition.storageVersion ?? definition.versions[0] ?? '',
        decodableVersions: definition.versions,
      });
      const selection = voter.selectionFor(grOf(definition));
      // A resource with an asynchronous converter (a CRD's conversion webhook) is brought to the selection
      // by it before the write (the selection is its hubVersion), and keeps its own codec. An object stored
      // at a version its cached copy or a concurrent switch left behind is encoded as it is: a write that
      // straddles a selection switch (during the webhook call) stores the previous selection, which every
      // server still decodes and the migration after the switch rewrites.
      const codec = definition.converter
        ? resourceCodec
        : scheme.codecFor({
            group: definition.group,
            kind: definition.kind,
            encodingVersion: selection.currentSelection,
            decodableVersions: definition.versions,
          });
      return {
        codec,
        kv: conditionedBackend(kv, { ...selection, prefix, reencode: (stored) => codec.encode(codec.decode(stored)) }),
      };
    },
  };
}
