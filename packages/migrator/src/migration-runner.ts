import { StatusError, setCondition } from '@kapi/apimachinery';
import { ResourceClient, errorFromResponse, type RestClient } from '@kapi/client';
import { finishCustomResourceMigration, startCustomResourceMigration } from './crd-stored-versions.js';
import { discoverResource, type DiscoveredResource } from './discovery.js';
import { restTransport, type ObjectRequest, type ObjectTransport } from './object-transport.js';
import { METADATA_PAGE_ACCEPT, readPage, type Page, type PageItem } from './page-reader.js';
import { effectivePageSize } from './page-size.js';
import { withRetry, type BackoffOptions } from './retry.js';
import {
  MIGRATION_FAILED,
  MIGRATION_RUNNING,
  MIGRATION_SUCCEEDED,
  STORAGE_MIGRATION_GROUP,
  STORAGE_MIGRATION_VERSION,
  type MigrationProgress,
  type StorageVersionMigration,
} from './storage-version-migration-api.js';
import type { TokenBucket } from './token-bucket.js';

/** What a migration run reports as it goes (metrics, progress bars). */
export interface MigrationObserver {
  onPage?(migration: StorageVersionMigration, progress: MigrationProgress): void;
  onObjectMigrated?(migration: StorageVersionMigration): void;
  onFinished?(migration: StorageVersionMigration, outcome: 'Succeeded' | 'Failed', message: string): void;
  onRetry?(migration: StorageVersionMigration, error: unknown, delayMs: number): void;
  /** A run ended by an error it does not retry (the controller runs the migration again after `delayMs`). */
  onInterrupted?(name: string, error: unknown, delayMs: number): void;
}

/** What {@link runMigration} needs. */
export interface MigrationRunContext {
  rest: RestClient;
  /** How pages are read and objects written (default: the REST client; the controller uses HTTP/2). */
  transport?: ObjectTransport | undefined;
  limiter: TokenBucket;
  backoff: BackoffOptions;
  /** Objects listed per page (default 500; when throttled, see {@link effectivePageSize}). */
  pageSize: number;
  /** Object writes of a page in flight at once (default 1; the rate limit still applies). */
  writesInFlight?: number | undefined;
  signal: AbortSignal;
  observer?: MigrationObserver | undefined;
}

const MERGE_PATCH = 'application/merge-patch+json';

const migrationRef = { group: STORAGE_MIGRATION_GROUP, version: STORAGE_MIGRATION_VERSION, resource: 'storageversionmigrations', namespaced: false };

/** The migrations client of a REST client. */
export function migrationClient(rest: RestClient): ResourceClient<StorageVersionMigration> {
  return new ResourceClient<StorageVersionMigration>(rest, migrationRef);
}

/** Terminal: Succeeded or Failed is True. */
export function isFinished(migration: StorageVersionMigration): boolean {
  return (migration.status?.conditions ?? []).some(
    (condition) => (condition.type === MIGRATION_SUCCEEDED || condition.type === MIGRATION_FAILED) && condition.status === 'True',
  );
}

class MigrationFailure extends Error {}

/**
 * Runs one migration to its end: records the checkpoint (the resource's list resourceVersion), then
 * lists the resource in pages and writes every object back unchanged with its UID and resourceVersion
 * (pages of metadata only and a merge PATCH of just those two fields, or, for a resource without the
 * patch verb, full pages and a PUT of each object as listed), so storage re-encodes what is stale and a
 * concurrently changed (409), deleted (404) or re-created (UID) object is skipped, never overwritten or
 * resurrected. The next page is read while the current one's objects are written. Objects newer than
 * the checkpoint are skipped. The continue token and counts are saved in status after each page (while
 * the next page's objects are written), so a restarted migrator resumes there.
 * Retriable errors are retried with backoff; any other error fails the migration with its message.
 * For custom resources, the CRD's `StorageMigrating` condition follows the migration, and success prunes
 * its `status.storedVersions` to the storage version (see crd-stored-versions.ts).
 * Returns early (leaving the migration Running) when the context's signal aborts.
 */
export async function runMigration(name: string, context: MigrationRunContext): Promise<void> {
  const migrations = migrationClient(context.rest);
  const retry = <T>(action: () => Promise<T>, migration: StorageVersionMigration) =>
    withRetry(action, context.backoff, context.signal, (error, delay) => context.observer?.onRetry?.(migration, error, delay));
  let migration = await retry(() => migrations.get(undefined, name), { metadata: { name } });
  if (isFinished(migration)) return;

  const saveStatus = async (mutate: (status: NonNullable<StorageVersionMigration['status']>) => void): Promise<void> => {
    for (;;) {
      const next: StorageVersionMigration = { ...migration, status: structuredClone(migration.status ?? {}) };
      mutate(next.status as NonNullable<StorageVersionMigration['status']>);
      try {
        migration = await retry(() => migrations.updateStatus(undefined, next), migration);
        return;
      } catch (error) {
        if (!(StatusError.isInstance(error) && error.code === 409)) throw error;
        migration = await retry(() => migrations.get(undefined, name), migration);
      }
    }
  };
  const finish = async (outcome: 'Succeeded' | 'Failed', reason: string, message: string): Promise<void> => {
    await saveStatus((status) => {
      status.conditions = setCondition(status.conditions, { type: MIGRATION_RUNNING, status: 'False', reason, message });
      status.conditions = setCondition(status.conditions, { type: outcome, status: 'True', reason, message });
    });
    context.observer?.onFinished?.(migration, outcome, message);
  };

  const { group = '', resource = '' } = migration.spec?.resource ?? {};
  try {
    const target = await retry(() => discoverResource(context.rest, group, resource), migration);
    if (!target) throw new MigrationFailure('resource does not exist in discovery');
    if (!target.verbs.includes('list') || !target.verbs.includes('update')) {
      throw new MigrationFailure(`resource ${resource}${group ? `.${group}` : ''} does not support the list and update verbs`);
    }
    const objects = new ResourceClient(context.rest, { ...target, namespaced: target.namespaced });
    if (!migration.status?.resourceVersion) {
      await retry(() => startCustomResourceMigration(context.rest, group, resource, name), migration);
      const first = await retry(() => objects.list(undefined, { limit: 1 }), migration);
      await saveStatus((status) => {
        status.resourceVersion = first.metadata?.resourceVersion ?? '0';
        status.progress = { migratedObjects: 0, skippedObjects: 0 };
        const remaining = first.metadata?.remainingItemCount;
        if (remaining !== undefined || !first.metadata?.continue) {
          status.progress.remainingObjects = first.items.length + (remaining ?? 0);
          status.progress.percent = status.progress.remainingObjects === 0 ? 100 : 0;
        }
        status.conditions = setCondition(status.conditions, {
          type: MIGRATION_RUNNING,
          status: 'True',
          reason: 'StorageVersionMigrationInProgress',
          message: 'The migration is running',
        });
      });
    }
    const completed = await migratePages(migration, target, objects, context, (progress) =>
      saveStatus((status) => {
        status.progress = progress;
      }).then(() => context.observer?.onPage?.(migration, progress)),
    );
    if (!completed) return;
    await retry(() => finishCustomResourceMigration(context.rest, group, resource, 'Succeeded', name), migration);
    await finish(MIGRATION_SUCCEEDED, 'StorageVersionMigrationSucceeded', 'The migration has succeeded');
  } catch (error) {
    if (context.signal.aborted) return;
    const message = error instanceof MigrationFailure ? error.message : `migration encountered unhandled error: ${error instanceof Error ? error.message : String(error)}`;
    await finishCustomResourceMigration(context.rest, group, resource, 'Failed', name).catch(() => undefined);
    await finish(MIGRATION_FAILED, 'StorageVersionMigrationFailed', message);
  }
}

/** Whole percent of the objects visited (migrated or skipped) of all; undefined while the remainder is unknown. */
function percentDone(progress: MigrationProgress): number | undefined {
  if (progress.remainingObjects === undefined) return undefined;
  const done = progress.migratedObjects + progress.skippedObjects;
  const total = done + progress.remainingObjects;
  return total === 0 ? 100 : Math.floor((done * 100) / total);
}

/** Writes an object back unchanged; its answer's body is not parsed. Non-2xx is thrown as a StatusError. */
async function writeBack(transport: ObjectTransport, request: ObjectRequest): Promise<void> {
  const response = await transport.raw(request);
  if (response.statusCode < 200 || response.statusCode >= 300) throw errorFromResponse(response.statusCode, response.body);
}

/**
 * The write that migrates `item`: a merge PATCH of only its UID and resourceVersion (the server parses a
 * few bytes, and the patched object is the stored one), or, where the resource does not offer patch, a PUT
 * of the item as listed. Either way a changed object (another resourceVersion) answers 409, a deleted
 * one 404, and nothing is written but what the store finds stale.
 */
export function migrationWrite(path: string, item: PageItem, patch: boolean): ObjectRequest {
  if (!patch) return { method: 'PUT', path, body: item.body };
  // {"metadata":{"uid":...,"resourceVersion":...}}, as JSON.stringify writes it, without the objects.
  const uid = item.uid !== undefined ? `"uid":${JSON.stringify(item.uid)},` : '';
  return { method: 'PATCH', path, contentType: MERGE_PATCH, body: Buffer.from(`{"metadata":{${uid}"resourceVersion":${JSON.stringify(item.resourceVersion)}}}`) };
}

/**
 * A write that finds another object than the one listed: changed (409), deleted (404), or deleted and
 * created again under its name (a PATCH's 422 on `metadata.uid`, as upstream answers a patch changing the
 * UID): skipped, never overwritten or resurrected.
 */
export function isSkipped(error: unknown): boolean {
  if (!StatusError.isInstance(error)) return false;
  if (error.code === 409 || error.code === 404) return true;
  return error.code === 422 && (error.status.details?.causes ?? []).some((cause) => cause.field === 'metadata.uid');
}

/** Walks the pages from the saved continue token; false when aborted before the end. */
async function migratePages(
  migration: StorageVersionMigration,
  target: DiscoveredResource,
  objects: ResourceClient,
  context: MigrationRunContext,
  savePage: (progress: MigrationProgress) => Promise<void>,
): Promise<boolean> {
  const checkpoint = Number(migration.status?.resourceVersion ?? '0');
  const progress: MigrationProgress = { migratedObjects: 0, skippedObjects: 0, ...migration.status?.progress };
  const apiVersion = target.group === '' ? target.version : `${target.group}/${target.version}`;
  const limit = effectivePageSize(context.pageSize, context.limiter.qps);
  const retry = <T>(action: () => Promise<T>) =>
    withRetry(action, context.backoff, context.signal, (error, delay) => context.observer?.onRetry?.(migration, error, delay));
  const collection = objects.collectionPath(undefined);
  // The collection path of each namespace met, built once.
  const collections = new Map<string | undefined, string>();
  const itemPath = (item: PageItem) => {
    let prefix = collections.get(item.namespace);
    if (prefix === undefined) collections.set(item.namespace, (prefix = `${objects.collectionPath(item.namespace)}/`));
    return `${prefix}${encodeURIComponent(item.name)}`;
  };
  const unlimited = context.limiter.qps <= 0;
  const typeMeta = { apiVersion, kind: target.kind };
  const transport = context.transport ?? restTransport(context.rest);
  // With patch, pages list only metadata and each object is patched with its UID and resourceVersion.
  const patch = target.verbs.includes('patch');
  const read = (token: string | undefined): Promise<Page> => {
    const reading = retry(() => readPage(transport, collection, { limit, ...(token ? { continue: token } : {}) }, typeMeta, patch ? METADATA_PAGE_ACCEPT : undefined));
    // Awaited (and its error handled) when its page's turn comes; not when the migration stops first.
    reading.catch(() => undefined);
    return reading;
  };
  // The next page, read while this one's objects are written (two pages held at most).
  let next: { token: string; page: Promise<Page> } | undefined;
  // The last page's progress, saved while the next page's objects are written (they need not wait for
  // it); awaited before the next save and before returning.
  let saving: Promise<void> | undefined;
  try {
    for (;;) {
      if (context.signal.aborted) return false;
      let page: Page;
      const token = progress.continueToken;
      try {
        page = await (next && next.token === token ? next.page : read(token));
      } catch (error) {
        next = undefined;
        // The saved token expired (compaction): start over; rewritten objects are now no-ops.
        if (!(StatusError.isInstance(error) && error.code === 410) || !progress.continueToken) throw error;
        delete progress.continueToken;
        continue;
      }
      next = page.continue ? { token: page.continue, page: read(page.continue) } : undefined;
      // The page's writes, `writesInFlight` at a time; the first error that is not a skip stops the others.
      // Each write carries the UID and resourceVersion listed (preconditions).
      let cursor = 0;
      let failure: { error: unknown } | undefined;
      const writer = async () => {
        while (cursor < page.size && !failure && !context.signal.aborted) {
          const item = page.item(cursor++);
          if (Number(item.resourceVersion) > checkpoint) {
            progress.skippedObjects++;
            continue;
          }
          if (!unlimited) await context.limiter.take(context.signal);
          try {
            const request = migrationWrite(itemPath(item), item, patch);
            await retry(() => writeBack(transport, request));
            progress.migratedObjects++;
            context.observer?.onObjectMigrated?.(migration);
          } catch (error) {
            if (isSkipped(error)) progress.skippedObjects++;
            else failure ??= { error };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, context.writesInFlight ?? 1) }, writer));
      if (failure) throw failure.error;
      if (context.signal.aborted) return false;
      const remaining = page.remainingItemCount;
      if (page.continue) progress.continueToken = page.continue;
      else delete progress.continueToken;
      if (remaining !== undefined) progress.remainingObjects = remaining;
      else if (!page.continue) progress.remainingObjects = 0;
      else delete progress.remainingObjects;
      const percent = percentDone(progress);
      if (percent === undefined) delete progress.percent;
      else progress.percent = percent;
      await saving;
      saving = savePage({ ...progress });
      // Observed when awaited; never an unhandled rejection meanwhile.
      saving.catch(() => undefined);
      if (!page.continue) {
        await saving;
        return true;
      }
    }
  } finally {
    // Leaving early (aborted or failed): the save in flight ends first; the error thrown is the other one.
    await saving?.catch(() => undefined);
  }
}
