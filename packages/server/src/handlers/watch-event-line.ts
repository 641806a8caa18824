import { isKubeObject, toStatus } from '@kapi/apimachinery';
import type { StorageWatchEvent } from '@kapi/storage';
import type { ResourceRoute } from './resource-handler.js';
import { objectJson } from './list-writer.js';
import { sharedSerialization } from './shared-serialization.js';
import { buildTable, type IncludeObject } from './table.js';

/**
 * A storage event that may carry its serialized form per apiVersion (a watch cache can share the bytes
 * across watchers). When present it is used as is.
 */
export interface PreSerializedWatchEvent extends StorageWatchEvent {
  serializedFor?(apiVersion: string): string | undefined;
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

/**
 * The wire line of a watch event at `apiVersion` (as a one-row Table with `table`); an encoding failure
 * becomes an ERROR event's line.
 */
export function watchEventLine(
  event: PreSerializedWatchEvent,
  route: ResourceRoute,
  apiVersion: string,
  table?: WatchTableForm,
  now?: () => Date,
): string | Buffer {
  try {
    return wireEvent(event, route, apiVersion, table, now);
  } catch (error) {
    return `${JSON.stringify({ type: 'ERROR', object: toStatus(error) })}\n`;
  }
}

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
