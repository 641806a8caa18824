import { Store, type StoreOptions } from '@kapi/storage';
import { MemoryBackend, type MemoryBackendOptions } from './memory-backend.js';

/** Options of {@link createMemoryStorage}: the backend's options and the store's (minus `kv`). */
export interface MemoryStorageOptions extends MemoryBackendOptions, Omit<StoreOptions, 'kv' | 'ownsBackend'> {}

/** A {@link Store} over a fresh {@link MemoryBackend}, which it owns (closing the store closes it). */
export function createMemoryStorage(options: MemoryStorageOptions = {}): Store {
  const { progressNotifyIntervalMs, now, compactionIntervalMs, codec, transformer, maxObjectSize } = options;
  const kv = new MemoryBackend({
    ...(progressNotifyIntervalMs !== undefined ? { progressNotifyIntervalMs } : {}),
    ...(now !== undefined ? { now } : {}),
    ...(compactionIntervalMs !== undefined ? { compactionIntervalMs } : {}),
  });
  return new Store({ kv, codec, transformer, maxObjectSize, ownsBackend: true });
}
