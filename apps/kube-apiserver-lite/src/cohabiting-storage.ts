import { storageVersionHash, type GroupResource, type KubeObject, type Scheme } from '@kapi/apimachinery';
import type { Codec } from '@kapi/storage';
import { coreToEventsV1, eventsV1ToCore } from './resources/events-v1.js';

/** A resource served from another resource's storage (its key prefix and its encoding). */
export interface CohabitingStorage {
  /** The resource whose objects these are (`events` of core for events.k8s.io `events`). */
  storedAs: GroupResource;
  /** The apiVersion objects are written at, e.g. `v1`: the StorageVersion's encodingVersion. */
  encodingVersion: string;
  /** The discovery storageVersionHash: the stored resource's. */
  storageVersionHash: string;
  /** Writes hub objects of the served group in the stored resource's encoding and reads them back. */
  codec: Codec;
}

interface Cohabitant {
  storedAs: GroupResource;
  kind: string;
  version: string;
  toStored: (object: KubeObject) => KubeObject;
  fromStored: (object: KubeObject) => KubeObject;
}

/**
 * Upstream's cohabitating resources (`AddCohabitatingResources` in kube-apiserver's storage factory):
 * events.k8s.io `events` are the core `events`, under one etcd prefix in the core/v1 encoding.
 */
const cohabitants = new Map<string, Cohabitant>([
  [
    'events.k8s.io/events',
    {
      storedAs: { group: '', resource: 'events' },
      kind: 'Event',
      version: 'v1',
      toStored: eventsV1ToCore,
      fromStored: coreToEventsV1,
    },
  ],
]);

/** How `groupResource` is stored when it shares another resource's storage; undefined when it does not. */
export function cohabitingStorage(
  scheme: Scheme,
  groupResource: GroupResource,
): CohabitingStorage | undefined {
  const cohabitant = cohabitants.get(`${groupResource.group}/${groupResource.resource}`);
  if (!cohabitant) return undefined;
  const { storedAs, kind, version, toStored, fromStored } = cohabitant;
  const stored = scheme.codecFor({ group: storedAs.group, kind, encodingVersion: version });
  return {
    storedAs,
    encodingVersion: storedAs.group === '' ? version : `${storedAs.group}/${version}`,
    storageVersionHash: storageVersionHash(storedAs.group, version, kind),
    // No verbatim fast paths: every read and write converts between the two groups.
    codec: {
      encode: (object) => stored.encode(toStored(object)),
      decode: (data) => fromStored(stored.decode(data)),
    },
  };
}
