import { isKubeObject, toStatus } from '@kapi/apimachinery';
import type { StorageWatchEvent } from '@kapi/storage';
import type { ResourceRoute } from './resource-handler.js';
import { objectJson } from './list-writer.js';
import { sharedSerialization } from './shared-serialization.js';
import { buildTable, partialObjectMetadata, type IncludeObject } from './table.js';

/**
 * A storage event that may carry its serialized form per apiVersion (a watch cache can share the bytes
 * across watchers). When present it is used as is.
 */
export interface PreSerializedWatchEvent extends StorageWatchEvent {
  serializedFor?(apiVersion: string): string | undefined;
}

/**
 * Watch events in another form than the object: one-row Tables (`kubectl get -w`), whose column
 * definitions only the first object event carries (`headersSent` records it, per watch), or
 * PartialObjectMetadata (client-go's metadata informers), as upstream's watch encoder sends them.
 */
export type WatchForm =
  | { as: 'Table'; version: string; includeObject: IncludeObject; headersSent: boolean }
  | { as: 'PartialObjectMetadata'; version: string };

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
  form?: WatchForm,
  now?: () => Date,
): string | Buffer {
  try {
    return wireEvent(event, route, apiVersion, form, now);
  } catch (error) {
    return `${JSON.stringify({ type: 'ERROR', object: toStatus(error) })}\n`;
  }
}

function wireEvent(
  event: PreSerializedWatchEvent,
  route: ResourceRoute,
  apiVersion: string,
  form?: WatchForm,
  now?: () => Date,
): string | Buffer {
  if (form) return serialize(event, route, apiVersion, form, now);
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
  form?: WatchForm,
  now?: () => Date,
): string {
  let object: unknown = event.object;
  if (event.type === 'BOOKMARK' && isKubeObject(event.object)) {
    const metadata = event.object.metadata;
    if (form?.as === 'Table') {
      object = { kind: 'Table', apiVersion: `meta.k8s.io/${form.version}`, metadata: { resourceVersion: metadata.resourceVersion }, columnDefinitions: [], rows: [] };
    } else if (form?.as === 'PartialObjectMetadata') {
      object = { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${form.version}`, metadata };
    } else object = { ...event.object, apiVersion, kind: route.definition.kind };
  } else if (event.type !== 'ERROR' && isKubeObject(event.object)) {
    const versioned = route.store.toVersion(event.object, route.version);
    if (form?.as === 'Table') {
      const table = buildTable(route.definition, [versioned], {
        version: form.version,
        includeObject: form.includeObject,
        listMetadata: { resourceVersion: versioned.metadata.resourceVersion },
        ...(now ? { now: now() } : {}),
      });
      // Upstream's encoder sends the column definitions with the first object event only.
      if (form.headersSent) table['columnDefinitions'] = null;
      form.headersSent = true;
      object = table;
    } else if (form?.as === 'PartialObjectMetadata') object = partialObjectMetadata(versioned, form.version);
    else object = versioned;
  }
  return `${JSON.stringify({ type: event.type, object })}\n`;
}
