import type { KubeObject } from '@kapi/apimachinery';
import { Informer, sleep, type RestClient } from '@kapi/client';
import { defaultBackoff, type BackoffOptions } from './retry.js';
import { isFinished, migrationClient, runMigration, type MigrationObserver } from './migration-runner.js';
import { Http2Transport, restTransport, type ObjectTransport } from './object-transport.js';
import type { StorageVersionMigration } from './storage-version-migration-api.js';
import { TokenBucket } from './token-bucket.js';

/** Options of a {@link MigrationController}. */
export interface MigrationControllerOptions {
  rest: RestClient;
  /** Object writes a second, over all migrations (default 5; 0 is unthrottled). */
  qps?: number;
  /** Writes allowed at once after a pause (default 10). */
  burst?: number;
  /** Migrations of different resources run at once (default 1). */
  workers?: number;
  /** Objects per list page (default 500); when throttled, at most about a quarter second of writes (at least 10). */
  pageSize?: number;
  /** Object writes of a page in flight at once (default 1), within the qps limit. */
  writesInFlight?: number;
  /**
   * Read pages and write objects over one HTTP/2 connection (default true; an `http:` server, or one
   * that does not negotiate HTTP/2, is served over the REST client's HTTP/1.1 connections instead).
   */
  http2?: boolean;
  backoff?: BackoffOptions;
  observer?: MigrationObserver;
}

const groupResourceOf = (migration: StorageVersionMigration) =>
  `${migration.spec?.resource?.resource ?? ''}.${migration.spec?.resource?.group ?? ''}`;

/** Oldest first (creationTimestamp, then name), as the in-tree runner picks the active migration. */
const olderFirst = (left: StorageVersionMigration, right: StorageVersionMigration) =>
  (left.metadata.creationTimestamp ?? '').localeCompare(right.metadata.creationTimestamp ?? '') ||
  (left.metadata.name ?? '').localeCompare(right.metadata.name ?? '');

/**
 * Runs StorageVersionMigrations: an informer feeds a work queue of migration names, and workers run
 * one migration per resource at a time (the oldest unfinished one; the next starts when it ends).
 * Unfinished migrations are picked up again after a restart and resume from their saved continue token.
 */
export class MigrationController {
  private readonly informer: Informer;
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private waiters: Array<() => void> = [];
  private abort: AbortController | undefined;
  private workers: Array<Promise<void>> = [];
  private readonly limiter: TokenBucket;
  private readonly transport: ObjectTransport;

  constructor(private readonly options: MigrationControllerOptions) {
    this.informer = new Informer(migrationClient(options.rest));
    this.transport = options.http2 === false ? restTransport(options.rest) : new Http2Transport(options.rest);
    this.limiter = new TokenBucket(options.qps ?? 5, options.burst ?? 10);
    // A migration seen finished lets the next one of its resource start: the worker that ran it may have
    // looked for that next one before the informer saw the finish, and skipped it as not the oldest.
    const onChange = (object: KubeObject) => {
      const migration = object as StorageVersionMigration;
      if (!isFinished(migration)) return this.enqueue(migration.metadata.name ?? '');
      for (const next of this.unfinished(groupResourceOf(migration))) this.enqueue(next.metadata.name ?? '');
    };
    this.informer.addEventHandler({ onAdd: onChange, onUpdate: (_old, object) => onChange(object) });
  }

  /** Starts the informer and the workers. */
  start(): void {
    if (this.abort) return;
    this.abort = new AbortController();
    this.informer.start();
    for (let worker = 0; worker < (this.options.workers ?? 1); worker++) this.workers.push(this.work(this.abort.signal));
  }

  /** Stops: a running migration stays Running and resumes from its last saved page on the next start. */
  async stop(): Promise<void> {
    this.abort?.abort();
    for (const wake of this.waiters.splice(0)) wake();
    await Promise.all(this.workers);
    await this.informer.stop();
    this.transport.close();
    this.workers = [];
    this.abort = undefined;
  }

  private enqueue(name: string): void {
    if (!name || this.queued.has(name)) return;
    this.queued.add(name);
    this.queue.push(name);
    this.waiters.shift()?.();
  }

  private async work(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const name = this.queue.shift();
      if (name === undefined) {
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        continue;
      }
      this.queued.delete(name);
      const migration = this.informer.indexer.get(name) as StorageVersionMigration | undefined;
      if (!migration || isFinished(migration)) continue;
      const groupResource = groupResourceOf(migration);
      const first = this.unfinished(groupResource)[0];
      if (this.active.has(groupResource) || first?.metadata.name !== name) continue;
      this.active.add(groupResource);
      let ended = false;
      try {
        await runMigration(name, {
          rest: this.options.rest,
          transport: this.transport,
          limiter: this.limiter,
          backoff: this.options.backoff ?? defaultBackoff,
          pageSize: this.options.pageSize ?? 500,
          writesInFlight: this.options.writesInFlight ?? 1,
          signal,
          observer: this.options.observer,
        });
        ended = true;
      } catch (error) {
        // Not finished (e.g. the server went away while saving status): try again after a pause.
        const delay = (this.options.backoff ?? defaultBackoff).maxMs / 10;
        if (!signal.aborted) this.options.observer?.onInterrupted?.(name, error, delay);
        await sleep(delay, signal);
      } finally {
        this.active.delete(groupResource);
      }
      // The next migration of the resource, or this one again if an error interrupted it. One that ended
      // (Succeeded or Failed, or found so) is not run again while the informer has yet to see it end:
      // that would loop on it until the watch event came.
      for (const next of this.unfinished(groupResource)) if (!ended || next.metadata.name !== name) this.enqueue(next.metadata.name ?? '');
    }
  }

  private unfinished(groupResource: string): StorageVersionMigration[] {
    return (this.informer.indexer.list() as StorageVersionMigration[])
      .filter((candidate) => groupResourceOf(candidate) === groupResource && !isFinished(candidate))
      .sort(olderFirst);
  }
}
