import {
  INITIAL_EVENTS_END_ANNOTATION,
  StatusError,
  type KubeObject,
  type Status,
  type WatchEvent,
} from '@kapi/apimachinery';
import type { ListQuery, ResourceClient } from './resource-client.js';
import { sleep } from './sleep.js';

/** Where a reflector puts what it lists and watches. */
export interface ReflectorStore {
  /** Replaces the content after a list (or a watch-list's initial events). */
  replace(objects: KubeObject[], resourceVersion: string): void;
  add(object: KubeObject): void;
  update(object: KubeObject): void;
  delete(object: KubeObject): void;
  /** Called on every BOOKMARK: the store is now known to be current at this revision. */
  setResourceVersion?(resourceVersion: string): void;
}

/** Options of a {@link Reflector}. */
export interface ReflectorOptions {
  client: ResourceClient;
  store: ReflectorStore;
  /** Namespace to list/watch; all namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Use watch-list (sendInitialEvents) instead of list + watch (KEP-3157). */
  useWatchList?: boolean;
  /** Server-side timeout of each watch; default random in [300, 600) s as client-go. */
  watchTimeoutSeconds?: () => number;
  /** Page size of the initial list (0: no paging). */
  pageSize?: number;
  /** Delay before retrying after a failure. Default 1000 ms. */
  retryDelayMs?: number;
}

/** Counters of what a reflector did: the rolling-restart tests read these. */
export interface ReflectorStats {
  /** Lists (and watch-list initial syncs) performed, the first included. */
  lists: number;
  /** Lists after the first one: each is a relist a restart or expiry forced. */
  relists: number;
  /** 410 Expired/Gone answers received (list or watch). */
  expired: number;
  /** Watches opened. */
  watches: number;
  /** BOOKMARK events received. */
  bookmarks: number;
}

function isExpired(status: Partial<Status> | StatusError): boolean {
  const code = status instanceof StatusError ? status.code : status.code;
  const reason = status instanceof StatusError ? status.reason : status.reason;
  return code === 410 || reason === 'Expired' || reason === 'Gone';
}

function isTooLarge(status: Partial<Status>): boolean {
  const causes = status.details?.causes ?? [];
  return causes.some((c) => c.reason === 'ResourceVersionTooLarge' || c.message === 'Too large resource version');
}

/**
 * client-go's Reflector: lists, then watches from the list's resourceVersion with bookmarks, keeping its
 * place across watch timeouts and server restarts. Only a 410 (or a too-large RV) forces a relist, and that
 * relist uses RV "" (consistent).
 */
export class Reflector {
  /** The newest resourceVersion the store is known to be current at (from lists, events and bookmarks). */
  lastSyncResourceVersion = '';
  readonly stats: ReflectorStats = { lists: 0, relists: 0, expired: 0, watches: 0, bookmarks: 0 };
  private synced = false;
  private listResourceVersion = '0';

  constructor(private readonly options: ReflectorOptions) {}

  /** True once the first list (or watch-list initial sync) completed. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const retryDelay = this.options.retryDelayMs ?? 1000;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          if (this.options.useWatchList) await this.watchList(signal);
          else await this.list();
          needList = false;
        }
        needList = await this.watch(signal);
      } catch (error) {
        if (signal.aborted) break;
        if (StatusError.isInstance(error) && (isExpired(error) || isTooLarge(error.status))) {
          if (isExpired(error)) this.stats.expired++;
          this.listResourceVersion = '';
          needList = true;
          continue;
        }
        await sleep(retryDelay, signal);
      }
    }
  }

  private selectors(): ListQuery {
    const query: ListQuery = {};
    if (this.options.labelSelector) query.labelSelector = this.options.labelSelector;
    if (this.options.fieldSelector) query.fieldSelector = this.options.fieldSelector;
    return query;
  }

  private countList(): void {
    if (this.stats.lists > 0) this.stats.relists++;
    this.stats.lists++;
  }

  private async list(): Promise<void> {
    const items: KubeObject[] = [];
    let continueToken: string | undefined;
    let resourceVersion = '';
    const pageSize = this.options.pageSize ?? 0;
    do {
      const query: ListQuery = { ...this.selectors() };
      if (continueToken) query.continue = continueToken;
      else query.resourceVersion = this.listResourceVersion;
      if (pageSize > 0 && this.listResourceVersion !== '0') query.limit = pageSize;
      const page = await this.options.client.list(this.options.namespace, query);
      items.push(...page.items);
      continueToken = page.metadata.continue || undefined;
      resourceVersion = page.metadata.resourceVersion ?? '';
    } while (continueToken);
    this.countList();
    this.options.store.replace(items, resourceVersion);
    this.lastSyncResourceVersion = resourceVersion;
    this.synced = true;
  }

  /** Watch-list initial sync: ADDED events until the initial-events-end bookmark, then keep watching. */
  private async watchList(signal: AbortSignal): Promise<void> {
    const stream = await this.options.client.watch(
      this.options.namespace,
      {
        ...this.selectors(),
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        resourceVersionMatch: 'NotOlderThan',
        resourceVersion: this.listResourceVersion === '0' ? '' : this.lastSyncResourceVersion,
        timeoutSeconds: this.timeoutSeconds(),
      },
      signal,
    );
    this.stats.watches++;
    const items: KubeObject[] = [];
    try {
      for await (const event of stream) {
        if (event.type === 'ERROR') throw new StatusError(event.object as Status);
        const object = event.object as KubeObject;
        if (event.type === 'BOOKMARK') {
          this.stats.bookmarks++;
          if (object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
            const resourceVersion = object.metadata.resourceVersion ?? '';
            this.countList();
            this.options.store.replace(items, resourceVersion);
            this.lastSyncResourceVersion = resourceVersion;
            this.synced = true;
            return;
          }
          continue;
        }
        if (event.type === 'ADDED' || event.type === 'MODIFIED') items.push(object);
      }
      throw new Error('watch-list ended before its initial events');
    } finally {
      stream.stop();
    }
  }

  private timeoutSeconds(): number {
    return this.options.watchTimeoutSeconds?.() ?? 300 + Math.floor(Math.random() * 300);
  }

  /** One watch from the last RV. Resolves true when a relist is needed. */
  private async watch(signal: AbortSignal): Promise<boolean> {
    const stream = await this.options.client.watch(
      this.options.namespace,
      {
        ...this.selectors(),
        resourceVersion: this.lastSyncResourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: this.timeoutSeconds(),
      },
      signal,
    );
    this.stats.watches++;
    try {
      for await (const event of stream) {
        if (this.handle(event)) return true;
      }
      return false;
    } finally {
      stream.stop();
    }
  }

  /** Applies one event; true when it demands a relist. */
  private handle(event: WatchEvent): boolean {
    if (event.type === 'ERROR') {
      const status = event.object as Status;
      if (isExpired(status)) {
        this.stats.expired++;
        this.listResourceVersion = '';
        return true;
      }
      if (isTooLarge(status)) {
        this.listResourceVersion = '';
        return true;
      }
      throw new StatusError(status);
    }
    const object = event.object as KubeObject;
    const resourceVersion = object.metadata.resourceVersion ?? '';
    switch (event.type) {
      case 'ADDED':
        this.options.store.add(object);
        break;
      case 'MODIFIED':
        this.options.store.update(object);
        break;
      case 'DELETED':
        this.options.store.delete(object);
        break;
      case 'BOOKMARK':
        this.stats.bookmarks++;
        this.options.store.setResourceVersion?.(resourceVersion);
        break;
    }
    if (resourceVersion) this.lastSyncResourceVersion = resourceVersion;
    return false;
  }
}
