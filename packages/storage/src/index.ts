export type {
  ResourceVersionMatch,
  Preconditions,
  ObjectAttributes,
  AttributesFunc,
  SelectionPredicate,
  GetOptions,
  ListOptions,
  ListResult,
  StorageWatchEvent,
  Watch,
  WatchReceiver,
  WatchConsumer,
  ResponseMeta,
  UpdateResult,
  UpdateFunc,
  GuaranteedUpdateOptions,
  DeleteOptions,
  CreateOptions,
  Interface,
  ProgressRequester,
  RevisionReader,
  Compactor,
  Closer,
} from './interfaces.js';
export {
  isProgressRequester,
  isRevisionReader,
  isCompactor,
  isCloser,
  defaultAttributes,
  predicateMatches,
  predicateHasSelectors,
} from './interfaces.js';
export type { StorageErrorCode } from './storage-error.js';
export { StorageError, storageErrorToStatus } from './storage-error.js';
export type {
  KVBackend,
  KVEntry,
  KVGetResult,
  KVRangeOptions,
  KVRangeResult,
  KVWriteCondition,
  KVConditionOptions,
  KVWriteOptions,
  KVWriteResult,
  KVWatchOptions,
  KVEvent,
  KVWatchListener,
  KVWatch,
} from './kv-backend.js';
export { RevisionCompactedError, FutureRevisionError, prefixRangeEnd } from './kv-backend.js';
export type { Codec, TransformContext, TransformedValue, ValueTransformer } from './codec.js';
export { jsonCodec, identityTransformer } from './codec.js';
export type { WatchChannelOptions } from './watch-channel.js';
export { WatchChannel, deliverByPromise } from './watch-channel.js';
export type { StoreOptions } from './store.js';
export { Store, defaultMaxObjectSize } from './store.js';
export { storedEncodingOf } from './stored-encoding.js';
export { copyStaleMark } from './stale-objects.js';
export { deepCopy } from './deep-copy.js';
export type { DecodedContinueToken } from './continue-token.js';
export { encodeContinueToken, decodeContinueToken } from './continue-token.js';
export type { EncryptionKey, AesTransformerOptions } from './transformers/aes-transformer.js';
export { aesGcmTransformer, aesCbcTransformer } from './transformers/aes-transformer.js';
export type { PrefixedTransformer } from './transformers/prefix-transformer.js';
export { prefixTransformer, identityProviderTransformer } from './transformers/prefix-transformer.js';
export type {
  EncryptionConfiguration,
  EncryptionConfigurationKey,
  EncryptionProviderConfiguration,
  EncryptedGroupResource,
} from './transformers/encryption-configuration.js';
export {
  EncryptionTransformers,
  parseEncryptionConfiguration,
  providersTransformer,
} from './transformers/encryption-configuration.js';
export { WatchedObjects } from './watched-objects.js';
export type { WatchedStorage } from './watched-objects.js';
