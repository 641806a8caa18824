import type { Interface } from '@kapi/storage';
import type { PostStartHook } from '@kapi/server';
import { Cacher } from '@kapi/watch-cache';

/** The post-start hook's name: readyz lists it as `poststarthook/storage-readiness`. */
export const STORAGE_READINESS_HOOK = 'storage-readiness';

/** Upstream's `--storage-initialization-timeout` default. */
export const DEFAULT_STORAGE_INITIALIZATION_TIMEOUT_MS = 60_000;

/**
 * Upstream's `storage-readiness` post-start hook (KEP-4568, `WatchCacheInitializationPostStartHook`):
 * `/readyz` reports `poststarthook/storage-readiness failed: not finished` until every watch cache of
 * the storages present when the hook runs has initialized, so a ready server no longer answers reads
 * with 429 `storage is (re)initializing`. Past `timeoutMs` it stops waiting, logs, and lets readyz pass,
 * as upstream does.
 */
export function storageReadinessHook(
  storages: () => Iterable<Interface>,
  timeoutMs: number,
  log: (message: string) => void,
): PostStartHook {
  return async ({ signal }) => {
    const caches = [...storages()].filter((storage): storage is Cacher => storage instanceof Cacher);
    // A cache stopped before it was ready has nothing left to wait for.
    const ready = Promise.all(caches.map((cache) => cache.waitUntilReady().catch(() => undefined)));
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ready.then(() => 'ready' as const),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
        signal.addEventListener('abort', () => resolve('timeout'), { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (outcome === 'timeout' && !signal.aborted) {
      const waiting = caches.filter((cache) => !cache.isReady).length;
      log(`deadline exceeded while waiting for storage readiness (${waiting} watch caches not ready), ignoring`);
    }
  };
}
