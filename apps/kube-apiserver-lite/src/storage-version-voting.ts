import { StatusError, type GroupResource, type Scheme } from '@kapi/apimachinery';
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
      const codec = definition.converter
        ? selectionCheckingCodec(resourceCodec, definition, selection.currentSelection)
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

/**
 * The codec of a resource whose objects its asynchronous converter brings to the selected version before
 * they are written (the selection is its `hubVersion`): it encodes them as they are, and refuses one whose
 * version is no longer the selection (the selection switched during the conversion) with a 409 Conflict,
 * which clients retry, rather than store it in a version the selection key does not name.
 */
function selectionCheckingCodec(codec: Codec, definition: ResourceDefinition, currentSelection: () => string): Codec {
  return {
    decode: (data) => codec.decode(data),
    encode(object) {
      const selected = currentSelection();
      const expected = definition.group === '' ? selected : `${definition.group}/${selected}`;
      if (object.apiVersion !== expected) {
        throw StatusError.conflict(
          grOf(definition),
          object.metadata.name ?? '',
          `the storage version selection changed to ${expected} while the object was converted to ${object.apiVersion ?? ''}; please retry`,
        );
      }
      return codec.encode(object);
    },
  };
}
