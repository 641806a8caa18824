import { Type, kindSchema, type KindDefinition, type KubeObject, withFieldDescriptions } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { objectReferenceSchema } from './common-schemas.js';
import { eventPrinterColumns, objectReferenceFields } from './event-table.js';
import { eventsV1Description, eventsV1Descriptions } from './events-v1-descriptions.js';
import { validateEventsV1Create, validateEventsV1Update } from './events-v1-validation.js';

const events = { group: 'events.k8s.io', version: 'v1' } as const;

/** The events.k8s.io/v1 Event schema (the same object as core/v1's, under the new field names). */
const eventsV1Schema = withFieldDescriptions(
  kindSchema({
    ...events,
    kind: 'Event',
    description: eventsV1Description,
    properties: {
      eventTime: Type.Optional(Type.String({ format: 'date-time', nullable: true })),
      series: Type.Optional(
        Type.Object({
          count: Type.Optional(Type.Integer({ format: 'int32' })),
          lastObservedTime: Type.Optional(Type.String({ format: 'date-time' })),
        }),
      ),
      reportingController: Type.Optional(Type.String()),
      reportingInstance: Type.Optional(Type.String()),
      action: Type.Optional(Type.String()),
      reason: Type.Optional(Type.String()),
      regarding: Type.Optional(objectReferenceSchema),
      related: Type.Optional(objectReferenceSchema),
      note: Type.Optional(Type.String()),
      type: Type.Optional(Type.String()),
      deprecatedSource: Type.Optional(
        Type.Object({ component: Type.Optional(Type.String()), host: Type.Optional(Type.String()) }),
      ),
      deprecatedFirstTimestamp: Type.Optional(Type.String({ format: 'date-time', nullable: true })),
      deprecatedLastTimestamp: Type.Optional(Type.String({ format: 'date-time', nullable: true })),
      deprecatedCount: Type.Optional(Type.Integer({ format: 'int32' })),
    },
  }),
  eventsV1Descriptions,
);

/** events.k8s.io/v1 field -> core/v1 field (upstream's pkg/apis/events/v1 conversion); others keep their name. */
const renamed: Record<string, string> = {
  note: 'message',
  regarding: 'involvedObject',
  reportingController: 'reportingComponent',
  deprecatedSource: 'source',
  deprecatedFirstTimestamp: 'firstTimestamp',
  deprecatedLastTimestamp: 'lastTimestamp',
  deprecatedCount: 'count',
};
const shared = ['eventTime', 'series', 'related', 'reportingInstance', 'action', 'reason', 'type'];
const coreName = new Map<string, string>([
  ...Object.entries(renamed),
  ...shared.map((name): [string, string] => [name, name]),
]);
const eventsName = new Map<string, string>([...coreName].map(([from, to]): [string, string] => [to, from]));

function rename(object: KubeObject, names: Map<string, string>, apiVersion: string): KubeObject {
  const out: KubeObject = { apiVersion, kind: 'Event', metadata: object.metadata };
  for (const [key, value] of Object.entries(object)) {
    const target = names.get(key);
    if (target !== undefined) out[target] = value;
  }
  return out;
}

/** An events.k8s.io/v1 Event as the core/v1 Event it is stored as. */
export const eventsV1ToCore = (object: KubeObject): KubeObject => rename(object, coreName, 'v1');

/** A core/v1 Event as events.k8s.io/v1 shows it. */
export const coreToEventsV1 = (object: KubeObject): KubeObject =>
  rename(object, eventsName, 'events.k8s.io/v1');

/** The events.k8s.io kinds. */
export const eventsV1Kinds: KindDefinition[] = [{ ...events, kind: 'Event', schema: eventsV1Schema }];

/**
 * Upstream's events.k8s.io/v1 field selector labels (its field label conversion): the core names under
 * the new API's names.
 */
const eventsV1Fields = (object: KubeObject) => {
  return {
    labels: object.metadata.labels ?? {},
    fields: {
      'metadata.name': object.metadata.name ?? '',
      'metadata.namespace': object.metadata.namespace ?? '',
      ...objectReferenceFields('regarding', object.regarding),
      reason: (object.reason as string | undefined) ?? '',
      reportingController: (object.reportingController as string | undefined) ?? '',
      type: (object.type as string | undefined) ?? '',
    },
  };
};
const eventsV1SelectableFields = Object.keys(
  eventsV1Fields({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: {} }).fields,
).filter((field) => !field.startsWith('metadata.'));

/**
 * events.k8s.io/v1 events: the core/v1 events under the new API, stored under the same key prefix and in
 * the same (core/v1) encoding, as upstream's cohabitating resources (see `cohabitingStorage`).
 */
export const eventsV1Resources: ResourceDefinition[] = [
  {
    group: 'events.k8s.io',
    resource: 'events',
    storagePrefix: '/events',
    returnDeletedObject: false,
    tracksGeneration: false,
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    versions: ['v1'],
    printerColumns: eventPrinterColumns({ lastSeen: 'deprecatedLastTimestamp', object: 'regarding', message: 'note' }),
    selectableFields: eventsV1SelectableFields,
    strategy: {
      getAttributes: eventsV1Fields,
      validate: (object) => validateEventsV1Create(eventsV1ToCore(object)),
      validateUpdate: (object, old) => validateEventsV1Update(eventsV1ToCore(object), eventsV1ToCore(old)),
    },
  },
];
