import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseFieldSelector, type KubeObject } from '@kapi/apimachinery';
import { releaseRequestTarget, requestContext } from '@kapi/filters';
import type { StorageWatchEvent } from '@kapi/storage';
import type { HandlerEnvironment, ResourceRoute } from './resource-handler.js';
import type { ReadQuery } from './query-options.js';
import type { WatchForm } from './watch-event-line.js';
import { WatchStream } from './watch-stream.js';

export type { PreSerializedWatchEvent, WatchForm } from './watch-event-line.js';

/** A watch stream being served, as {@link WatchRegistry} sees it. */
export interface ServedWatch {
  /** Ends the stream. */
  close(): void;
}

/** Tracks running watch streams so shutdown can end them. */
export class WatchRegistry {
  private readonly active = new Set<ServedWatch>();

  /** Registers a stream. */
  add(watch: ServedWatch): void {
    this.active.add(watch);
  }

  remove(watch: ServedWatch): void {
    this.active.delete(watch);
  }

  /** How many streams are open. */
  get size(): number {
    return this.active.size;
  }

  /** Ends every stream cleanly. */
  closeAll(): void {
    for (const watch of [...this.active]) watch.close();
  }
}

/** The upstream default: `1800s * (1 + rand)`. */
export function defaultWatchTimeoutSeconds(): number {
  return Math.floor(1800 * (1 + Math.random()));
}

/**
 * Streams a watch as chunked `application/json`, one `{"type","object"}` line per event, until the
 * timeout, client disconnect, server shutdown or the end of the storage watch.
 */
export function serveWatch(
  request: IncomingMessage,
  response: ServerResponse,
  route: ResourceRoute,
  options: {
    namespace: string;
    name: string;
    query: ReadQuery;
    environment: HandlerEnvironment;
    form?: WatchForm;
  },
): Promise<void> {
  const { query, environment } = options;
  requestContext(request).longRunning = true;
  let fieldSelector = query.fieldSelector;
  if (options.name !== '') {
    const byName = `metadata.name=${options.name}`;
    fieldSelector = parseFieldSelector(
      fieldSelector && !fieldSelector.empty() ? `${fieldSelector.toString()},${byName}` : byName,
    );
  }
  const timeoutSeconds =
    query.timeoutSeconds ?? (environment.watchTimeoutSeconds ?? defaultWatchTimeoutSeconds)();
  const deadline = Date.now() + timeoutSeconds * 1000;
  const stream = new WatchStream(response, {
    route,
    environment,
    allowBookmarks: query.allowWatchBookmarks,
    scope: options.name ? 'resource' : options.namespace ? 'namespace' : 'cluster',
    deadline,
    form: options.form,
  });
  const watch = route.store.watch(options.namespace, {
    ...(query.resourceVersion !== undefined ? { resourceVersion: query.resourceVersion } : {}),
    ...(query.resourceVersionMatch ? { resourceVersionMatch: query.resourceVersionMatch } : {}),
    ...(query.labelSelector ? { labelSelector: query.labelSelector } : {}),
    ...(fieldSelector ? { fieldSelector } : {}),
    ...(query.sendInitialEvents !== undefined ? { sendInitialEvents: query.sendInitialEvents } : {}),
    allowWatchBookmarks: query.allowWatchBookmarks,
    version: route.version,
    deadline,
  });
  // Everything the watch needs from the URL is read: its split path and query need not stay with it.
  releaseRequestTarget(request);
  return stream.serve(watch);
}

/** The object of a watch event, typed for tests and clients. */
export type WatchLine = { type: StorageWatchEvent['type']; object: KubeObject };
