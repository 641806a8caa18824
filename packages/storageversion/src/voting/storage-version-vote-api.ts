import { Type, kindSchema, type FieldError, type GroupResource, type KindDefinition, type KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { storageVersionName } from '../storage-version-api.js';

/** The voting API's group (the 2019 "coordinated dynamic storage version" design). */
export const VOTING_GROUP = 'kube-apiserver.internal.k8s.io';
/** The voting API's version. */
export const VOTING_VERSION = 'v1alpha1';
/** `kube-apiserver.internal.k8s.io/v1alpha1`. */
export const VOTING_API_VERSION = `${VOTING_GROUP}/${VOTING_VERSION}`;

/** One apiserver's vote: the storage version its release prefers. */
export interface VersionCandidate {
  /** The identity (lease name) of the voting apiserver. */
  apiServerID: string;
  /** The version (within the resource's group, e.g. `v2`) this apiserver would like to store. */
  preferredVersion: string;
}

/**
 * The vote record of one resource, named `<group>.<resource>` (`core.<resource>` for the core group).
 * Fields are top level, as the design writes them; there is no spec/status split and no /status.
 */
export interface StorageVersionVote extends KubeObject {
  /** The version every apiserver encodes this resource in (within the group: `v1`, not `apps/v1`). */
  selectedVersion: string;
  /** One entry per participating apiserver, keyed by apiServerID. */
  candidateVersions: VersionCandidate[];
}

const versionCandidateSchema = Type.Object({
  apiServerID: Type.String(),
  preferredVersion: Type.String(),
});

const storageVersionVoteSchema = kindSchema({
  group: VOTING_GROUP,
  version: VOTING_VERSION,
  kind: 'StorageVersion',
  description: 'The storage version selected by the apiservers of a cluster for one resource, and their votes.',
  extra: {
    selectedVersion: Type.String({ description: 'The version all apiservers encode the resource in.' }),
    candidateVersions: Type.Array(versionCandidateSchema, {
      description: 'The preferred storage version of each participating apiserver.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['apiServerID'],
      'x-kubernetes-patch-merge-key': 'apiServerID',
      'x-kubernetes-patch-strategy': 'merge',
    }),
  },
});

/** The object name of a resource's vote: `<group>.<resource>`, `core.<resource>` for the core group (no version). */
export function storageVersionVoteName(groupResource: GroupResource): string {
  return storageVersionName(groupResource.group, groupResource.resource);
}

/** Type guard for a decoded vote object. */
export function isStorageVersionVote(object: KubeObject): object is StorageVersionVote {
  const candidate = object as Partial<StorageVersionVote>;
  return typeof candidate.selectedVersion === 'string' && Array.isArray(candidate.candidateVersions);
}

/** Validation beyond the schema: name form, non-empty versions and IDs. */
export function validateStorageVersionVote(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const name = object.metadata.name ?? '';
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) {
    errors.push({ field: 'metadata.name', type: 'FieldValueInvalid', value: name, detail: 'name must be in the form of <group>.<resource>' });
  }
  const vote = object as Partial<StorageVersionVote>;
  if (!vote.selectedVersion) {
    errors.push({ field: 'selectedVersion', type: 'FieldValueRequired', detail: 'selectedVersion cannot be empty' });
  }
  // Duplicate apiServerIDs are reported by the schema (a map list keyed by apiServerID).
  (vote.candidateVersions ?? []).forEach((candidate, index) => {
    const path = `candidateVersions[${index}]`;
    if (!candidate.apiServerID) {
      errors.push({ field: `${path}.apiServerID`, type: 'FieldValueRequired', detail: 'apiServerID cannot be empty' });
    }
    if (!candidate.preferredVersion) {
      errors.push({ field: `${path}.preferredVersion`, type: 'FieldValueRequired', detail: 'preferredVersion cannot be empty' });
    }
  });
  return errors;
}

/** Scheme registration of the voting StorageVersion kind. */
export const storageVersionVoteKind: KindDefinition = {
  group: VOTING_GROUP,
  version: VOTING_VERSION,
  kind: 'StorageVersion',
  schema: storageVersionVoteSchema,
  validator: validateStorageVersionVote,
};

/** The voting `storageversions` resource (cluster-scoped, no subresources). */
export const storageVersionVoteResource: ResourceDefinition = {
  group: VOTING_GROUP,
  resource: 'storageversions',
  kind: 'StorageVersion',
  namespaced: false,
  versions: [VOTING_VERSION],
  storagePrefix: `/${VOTING_GROUP}/storageversions`,
  printerColumns: [
    { name: 'SelectedVersion', type: 'string', jsonPath: '.selectedVersion' },
    { name: 'Candidates', type: 'string', jsonPath: '.candidateVersions[*].preferredVersion' },
    { name: 'Servers', type: 'string', jsonPath: '.candidateVersions[*].apiServerID', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
