import { Store, type StoreOptions } from '@kapi/storage';
import { SqliteBackend, type SqliteBackendOptions } from './sqlite-backend.js';

/** Options of {@link createSqliteStorage}: the backend's options and the store's (minus `kv`). */
export interface SqliteStorageOptions
  extends SqliteBackendOptions, Omit<StoreOptions, 'kv' | 'ownsBackend'> {}

/** A {@link Store} over a {@link SqliteBackend} on `options.path`, which it owns (closing the store closes it). */
export async function createSqliteStorage(options: SqliteStorageOptions): Promise<Store> {
  const {
    path,
    progressNotifyIntervalMs,
    pollIntervalMs,
    ttlSweepIntervalMs,
    busyTimeoutMs,
    now,
    ...storeOptions
  } = options;
  const kv = await SqliteBackend.open({
    path,
    ...(progressNotifyIntervalMs !== undefined ? { progressNotifyIntervalMs } : {}),
    ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
    ...(ttlSweepIntervalMs !== undefined ? { ttlSweepIntervalMs } : {}),
    ...(busyTimeoutMs !== undefined ? { busyTimeoutMs } : {}),
    ...(now !== undefined ? { now } : {}),
  });
  return new Store({ ...storeOptions, kv, ownsBackend: true });
}
