import type { ListOptions } from '@kapi/storage';

/** Where a LIST is served from (cacher/delegator.go shouldDelegateList, without cache snapshots). */
export type ListRoute =
  | { target: 'storage' }
  /** From the cache as it is (`RV="0"`); `limit` is ignored. */
  | { target: 'cache'; wait: 'none' }
  /** From the cache once it has reached `revision` (NotOlderThan), paged by `limit` when set. */
  | { target: 'cache'; wait: 'revision'; revision: number; limit: number }
  /** From the cache once it has reached the backend's current revision (consistent read), paged by `limit` when set. */
  | { target: 'cache'; wait: 'consistent'; limit: number };

/** Parses a non-negative decimal resourceVersion; `undefined` when malformed. */
export function parseResourceVersion(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const revision = Number(text);
  return Number.isSafeInteger(revision) ? revision : undefined;
}

/**
 * Decides where a LIST is served. Served by the storage: `Exact`, continue tokens (the pages after the
 * first are exact reads), `RV=N` with a limit but no match (legacy exact), `RV=""` when consistent reads
 * from the cache are not possible, and malformed requests (so the storage reports them with its wording).
 * A consistent read (`RV=""`) with a limit is served from the cache like one without, its first page cut
 * there (as `kubectl get` asks, `limit=500`): upstream's delegator does not look at the limit of a
 * consistent read either.
 */
export function routeList(options: ListOptions | undefined, consistentReadsFromCache: boolean): ListRoute {
  const storage: ListRoute = { target: 'storage' };
  const text = options?.resourceVersion ?? '';
  const match = options?.resourceVersionMatch ?? '';
  const limit = options?.predicate?.limit ?? 0;
  if (options?.predicate?.continue || (match !== '' && match !== 'NotOlderThan')) return storage;
  if (text === '') {
    if (match !== '') return storage;
    return consistentReadsFromCache ? { target: 'cache', wait: 'consistent', limit: Math.max(0, limit) } : storage;
  }
  const revision = parseResourceVersion(text);
  if (revision === undefined) return storage;
  if (revision === 0) return { target: 'cache', wait: 'none' };
  if (limit > 0 && match !== 'NotOlderThan') return storage;
  return { target: 'cache', wait: 'revision', revision, limit: Math.max(0, limit) };
}
