export type { StorageVersionVote, VersionCandidate } from './storage-version-vote-api.js';
export {
  VOTING_GROUP,
  VOTING_VERSION,
  VOTING_API_VERSION,
  storageVersionVoteName,
  isStorageVersionVote,
  validateStorageVersionVote,
  storageVersionVoteKind,
  storageVersionVoteResource,
} from './storage-version-vote-api.js';
export type { VoteObjects } from './vote-objects.js';
export { isVoteConflict, voteObjectsFromClient, voteObjectsFromStorage } from './vote-objects.js';
export type { VotingResource, SelectionChange, StorageVersionVoterOptions } from './storage-version-voter.js';
export {
  StorageVersionVoter,
  SelectedVersionNotDecodableError,
  storageVersionSelectionKey,
} from './storage-version-voter.js';
export type { ConditionedBackendOptions } from './conditioned-backend.js';
export { conditionedBackend } from './conditioned-backend.js';
export { selectedStorageVersionHash } from './selected-storage-version-hash.js';
