import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  groupVersionString,
  isKubeObject,
  parseFieldSelector,
  toStatus,
  type KubeObject,
} from '@kapi/apimachinery';
import { requestContext } from '@kapi/filters';
import type { StorageWatchEvent, Watch, WatchReceiver } from '@kapi/storage';
import type { HandlerEnvironment, ResourceRoute } from './resource-handler.js';
import type { ReadQuery } from './query-options.js';
import { objectJson } from './list-writer.js';
import { sharedSerialization } from './shared-serialization.js';
import { buildTable, type IncludeObject } from './table.js';
import { WatchLineWriter } from './watch-line-writer.js';

/** Tracks running watch streams so shutdown can end them. */
export class WatchRegistry {
  private readonly active = new Set<AbortController>();

  /** Registers a stream; the returned controller aborts it. */
  add(): AbortController {
    const controller = new AbortController();
    this.active.add(controller);
    return controller;
  }

  remove(controller: AbortController): void {
    this.active.delete(controller);
  }

  /** How many streams are open. */
  get size(): number {
    return this.active.size;
  }

  /** Ends every stream cleanly. */
  closeAll(): void {
    for (const controller of this.active) controller.abort();
  }
}

/**
 * A storage event that may carry its serialized form per apiVersion (a watch cache can share the bytes
 * across watchers). When present it is used as is.
 */
export interface PreSerializedWatchEvent extends StorageWatchEvent {
  serializedFor?(apiVersion: string): string | undefined;
}

/** The upstream default: `1800s * (1 + rand)`. */
export function defaultWatchTimeoutSeconds(): number {
  return Math.floor(1800 * (1 + Math.random()));
}

/** Watch events rendered as one-row Tables (`kubectl get -w`). */
export interface WatchTableForm {
  version: string;
  includeObject: IncludeObject;
}

/**
 * The last line made for an event, by event object and apiVersion. A watch cache hands the very same
 * event object to all of its watchers, one after another, so the line is looked up once per event
 * rather than once per watcher.
 */
let lastEvent: PreSerializedWatchEvent | undefined;
let lastApiVersion = '';
let lastLine: string | Buffer = '';

function wireEvent(
  event: PreSerializedWatchEvent,
  route: ResourceRoute,
  apiVersion: string,
  table?: WatchTableForm,
  now?: () => Date,
): string | Buffer {
  if (table) return serialize(event, route, apiVersion, table, now);
  if (event === lastEvent && apiVersion === lastApiVersion) return lastLine;
  const line =
    event.serializedFor?.(apiVersion) ??
    objectEventLine(event, route, apiVersion) ??
    sharedSerialization(event.object, `${event.type}|${apiVersion}`, () => serialize(event, route, apiVersion));
  lastEvent = event;
  lastApiVersion = apiVersion;
  lastLine = line;
  return line;
}

const lineEnd = Buffer.from('}\n');

/**
 * The line of an ADDED/MODIFIED/DELETED event: `{"type":...,"object":` and the object's JSON, which is
 * made once per object version and shared with the GETs and LISTs that send it (see {@link objectJson}).
 */
function objectEventLine(event: PreSerializedWatchEvent, route: ResourceRoute, apiVersion: string): Buffer | undefined {
  if (event.type === 'BOOKMARK' || event.type === 'ERROR' || !isKubeObject(event.object)) return undefined;
  const hub = event.object;
  const versioned = route.store.toVersion(hub, route.version);
  const json =
    versioned === hub
      ? objectJson(versioned)
      : sharedSerialization(hub, `json|${apiVersion}`, () => JSON.stringify(versioned));
  return Buffer.concat([Buffer.from(`{"type":"${event.type}","object":`), json, lineEnd]);
}

function serialize(
  event: PreSerializedWatchEvent,
  route: ResourceRoute,
  apiVersion: string,
  table?: WatchTableForm,
  now?: () => Date,
): string {
  let object: unknown = event.object;
  if (event.type === 'BOOKMARK' && isKubeObject(event.object)) {
    object = table
      ? {
          kind: 'Table',
          apiVersion: `meta.k8s.io/${table.version}`,
          metadata: { resourceVersion: event.object.metadata.resourceVersion },
          columnDefinitions: [],
          rows: [],
        }
      : { ...event.object, apiVersion, kind: route.definition.kind };
  } else if (event.type !== 'ERROR' && isKubeObject(event.object)) {
    const versioned = route.store.toVersion(event.object, route.version);
    object = table
      ? buildTable(route.definition, [versioned], {
          version: table.version,
          includeObject: table.includeObject,
          ...(now ? { now: now() } : {}),
        })
      : versioned;
  }
  return `${JSON.stringify({ type: event.type, object })}\n`;
}

/** The most events written in one flush. */
const maxBatch = 256;

/**
 * Push mode: the watch hands events to `writeEvent` as it produces them (the queued ones first, as one
 * flush); when the response asks to wait, the watch queues events until it has drained.
 */
async function pushEvents(
  deliver: NonNullable<Watch['deliver']>,
  writer: WatchLineWriter,
  signal: AbortSignal,
  writeEvent: (event: PreSerializedWatchEvent) => boolean,
): Promise<void> {
  let flowing = true;
  const receive: WatchReceiver = (event) => (flowing = writeEvent(event) && flowing);
  while (!signal.aborted) {
    flowing = true;
    writer.cork();
    let delivery: Promise<boolean>;
    try {
      delivery = deliver(receive, maxBatch);
    } finally {
      writer.uncork();
    }
    if (!(await delivery)) return;
    if (!flowing) await writer.drained(signal);
  }
}

/** Pull mode, for watches without push: the events queued behind each one go out in the same flush. */
async function pullEvents(
  watch: Watch,
  writer: WatchLineWriter,
  signal: AbortSignal,
  writeEvent: (event: PreSerializedWatchEvent) => boolean,
): Promise<void> {
  for await (const first of watch as AsyncIterable<PreSerializedWatchEvent>) {
    if (signal.aborted) break;
    // Upstream flushes when its channel is empty: one socket write per burst instead of one per event.
    const queued = (watch.takeBuffered?.(maxBatch) ?? []) as readonly PreSerializedWatchEvent[];
    if (queued.length > 0) writer.cork();
    let flowing = writeEvent(first);
    for (const event of queued) flowing = writeEvent(event) && flowing;
    if (queued.length > 0) writer.uncork();
    if (!flowing) await writer.drained(signal);
  }
}

/**
 * Streams a watch as chunked `application/json`, one `{"type","object"}` line per event, until the
 * timeout, client disconnect, server shutdown or the end of the storage watch.
 */
export async function serveWatch(
  request: IncomingMessage,
  response: ServerResponse,
  route: ResourceRoute,
  options: {
    namespace: string;
    name: string;
    query: ReadQuery;
    environment: HandlerEnvironment;
    table?: WatchTableForm;
  },
): Promise<void> {
  const { query, environment } = options;
  const context = requestContext(request);
  context.longRunning = true;
  let fieldSelector = query.fieldSelector;
  if (options.name !== '') {
    const byName = `metadata.name=${options.name}`;
    fieldSelector = parseFieldSelector(
      fieldSelector && !fieldSelector.empty() ? `${fieldSelector.toString()},${byName}` : byName,
    );
  }
  const controller = environment.watches.add();
  const gvk = { group: route.definition.group, version: route.version, kind: route.definition.kind };
  const longRunning = {
    verb: 'watch',
    group: gvk.group,
    version: gvk.version,
    resource: route.definition.resource,
    scope: options.name ? 'resource' : options.namespace ? 'namespace' : 'cluster',
  };
  environment.metrics?.trackWatchers(gvk, 1);
  environment.metrics?.trackLongRunning(longRunning, 1);
  const abort = () => controller.abort();
  context.signal.addEventListener('abort', abort, { once: true });
  response.once('close', abort);
  const timeoutSeconds =
    query.timeoutSeconds ?? (environment.watchTimeoutSeconds ?? defaultWatchTimeoutSeconds)();
  const timer = setTimeout(abort, timeoutSeconds * 1000);
  try {
    const watch = await route.store.watch(options.namespace, {
      ...(query.resourceVersion !== undefined ? { resourceVersion: query.resourceVersion } : {}),
      ...(query.resourceVersionMatch ? { resourceVersionMatch: query.resourceVersionMatch } : {}),
      ...(query.labelSelector ? { labelSelector: query.labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
      ...(query.sendInitialEvents !== undefined ? { sendInitialEvents: query.sendInitialEvents } : {}),
      allowWatchBookmarks: query.allowWatchBookmarks,
      version: route.version,
      signal: controller.signal,
      deadline: Date.now() + timeoutSeconds * 1000,
    });
    const stop = () => watch.stop();
    controller.signal.addEventListener('abort', stop, { once: true });
    if (controller.signal.aborted) watch.stop();
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    response.flushHeaders();
    const writer = new WatchLineWriter(response);
    const apiVersion = groupVersionString({ group: route.definition.group, version: route.version });
    const sent = environment.metrics?.watchEventCounter(gvk);
    /** Writes one event line; false when the response asks to wait for `drain`. */
    const writeEvent = (event: PreSerializedWatchEvent): boolean => {
      if (event.type === 'BOOKMARK' && !query.allowWatchBookmarks) return true;
      sent?.inc();
      let line: string | Buffer;
      try {
        line = wireEvent(event, route, apiVersion, options.table, environment.now);
      } catch (error) {
        line = `${JSON.stringify({ type: 'ERROR', object: toStatus(error) })}\n`;
      }
      return writer.write(line);
    };
    try {
      const deliver = watch.deliver?.bind(watch);
      if (deliver) await pushEvents(deliver, writer, controller.signal, writeEvent);
      else await pullEvents(watch, writer, controller.signal, writeEvent);
    } finally {
      watch.stop();
    }
    if (!response.writableEnded) response.end();
  } finally {
    clearTimeout(timer);
    environment.metrics?.trackWatchers(gvk, -1);
    environment.metrics?.trackLongRunning(longRunning, -1);
    context.signal.removeEventListener('abort', abort);
    environment.watches.remove(controller);
  }
}

/** The object of a watch event, typed for tests and clients. */
export type WatchLine = { type: StorageWatchEvent['type']; object: KubeObject };
