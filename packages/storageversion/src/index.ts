export type { ServerStorageVersion, StorageVersion } from './storage-version-api.js';
export {
  STORAGE_VERSION_GROUP,
  STORAGE_VERSION_VERSION,
  storageVersionName,
  computeCommonEncodingVersion,
  validateStorageVersion,
  storageVersionKind,
  storageVersionResource,
} from './storage-version-api.js';
export { ALL_ENCODING_VERSIONS_EQUAL, setCommonEncodingVersion } from './common-encoding-version.js';
export type { ResourceInfo, StorageVersionManagerOptions, UpdateTarget } from './storage-version-manager.js';
export { StorageVersionManager } from './storage-version-manager.js';
export type { StorageVersionGate } from './with-storage-version-precondition.js';
export { withStorageVersionPrecondition } from './with-storage-version-precondition.js';
export type { StorageVersionUpdaterOptions } from './storage-version-updater-hook.js';
export { STORAGE_VERSION_UPDATER_HOOK, runStorageVersionUpdater } from './storage-version-updater-hook.js';
export type { StorageVersionGCOptions } from './storage-version-gc.js';
export { StorageVersionGarbageCollector } from './storage-version-gc.js';
export type {
  StorageVersionVote,
  VersionCandidate,
  VoteObjects,
  VotingResource,
  SelectionChange,
  StorageVersionVoterOptions,
  ConditionedBackendOptions,
} from './voting/index.js';
export {
  VOTING_GROUP,
  VOTING_VERSION,
  VOTING_API_VERSION,
  storageVersionVoteName,
  isStorageVersionVote,
  validateStorageVersionVote,
  storageVersionVoteKind,
  storageVersionVoteResource,
  isVoteConflict,
  voteObjectsFromClient,
  voteObjectsFromStorage,
  StorageVersionVoter,
  SelectedVersionNotDecodableError,
  storageVersionSelectionKey,
  conditionedBackend,
  selectedStorageVersionHash,
} from './voting/index.js';
