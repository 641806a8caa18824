import { Type, kindSchema, nameIsDNSLabel, type FieldError, type KindDefinition, type KubeObject, withFieldDescriptions } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { conditionsSchema, localObjectReferenceSchema, objectReferenceSchema, stringMapSchema } from './common-schemas.js';
import { validateConfigMapContents } from './config-map-validation.js';
import { eventPrinterColumns, objectReferenceFields } from './event-table.js';
import { validateEvent } from './event-validation.js';
import { validateSecretContents } from './secret-validation.js';
import {
  configMapDescription,
  configMapDescriptions,
  eventDescription,
  eventDescriptions,
  namespaceDescription,
  namespaceDescriptions,
  secretDescription,
  secretDescriptions,
  serviceAccountDescription,
  serviceAccountDescriptions,
} from './core-descriptions.js';

/** A built-in printer's `len(...)`: the size of a map or list, 0 when absent. */
const sizeOf = (value: unknown): number =>
  Array.isArray(value) ? value.length : typeof value === 'object' && value !== null ? Object.keys(value).length : 0;

const core = { group: '', version: 'v1' } as const;

const namespaceSchema = withFieldDescriptions(
  kindSchema({
    ...core,
    kind: 'Namespace',
    description: namespaceDescription,
    spec: Type.Object({ finalizers: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })) }),
    status: Type.Object({
      phase: Type.Optional(Type.String({ enum: ['Active', 'Terminating'] })),
      conditions: conditionsSchema(),
    }),
  }),
  namespaceDescriptions,
);

const configMapSchema = withFieldDescriptions(
  kindSchema({
    ...core,
    kind: 'ConfigMap',
    description: configMapDescription,
    properties: {
      data: stringMapSchema(),
      binaryData: Type.Optional(Type.Record(Type.String(), Type.String({ format: 'byte' }))),
      immutable: Type.Optional(Type.Boolean()),
    },
  }),
  configMapDescriptions,
);

const secretSchema = withFieldDescriptions(
  kindSchema({
    ...core,
    kind: 'Secret',
    description: secretDescription,
    properties: {
      data: Type.Optional(Type.Record(Type.String(), Type.String({ format: 'byte' }))),
      stringData: stringMapSchema(),
      type: Type.Optional(Type.String()),
      immutable: Type.Optional(Type.Boolean()),
    },
  }),
  secretDescriptions,
);

const eventSchema = withFieldDescriptions(
  kindSchema({
    ...core,
    kind: 'Event',
    description: eventDescription,
    properties: {
      involvedObject: objectReferenceSchema,
      reason: Type.Optional(Type.String()),
      message: Type.Optional(Type.String()),
      source: Type.Optional(Type.Object({ component: Type.Optional(Type.String()), host: Type.Optional(Type.String()) })),
      firstTimestamp: Type.Optional(Type.String({ format: 'date-time', nullable: true })),
      lastTimestamp: Type.Optional(Type.String({ format: 'date-time', nullable: true })),
      count: Type.Optional(Type.Integer({ format: 'int32' })),
      type: Type.Optional(Type.String()),
      eventTime: Type.Optional(Type.String({ format: 'date-time', nullable: true })),
      series: Type.Optional(
        Type.Object({ count: Type.Optional(Type.Integer()), lastObservedTime: Type.Optional(Type.String({ format: 'date-time' })) }),
      ),
      action: Type.Optional(Type.String()),
      related: Type.Optional(objectReferenceSchema),
      reportingComponent: Type.Optional(Type.String()),
      reportingInstance: Type.Optional(Type.String()),
    },
  }),
  eventDescriptions,
);

const serviceAccountSchema = withFieldDescriptions(
  kindSchema({
    ...core,
    kind: 'ServiceAccount',
    description: serviceAccountDescription,
    properties: {
      secrets: Type.Optional(Type.Array(objectReferenceSchema, { 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' })),
      imagePullSecrets: Type.Optional(Type.Array(localObjectReferenceSchema)),
      automountServiceAccountToken: Type.Optional(Type.Boolean()),
    },
  }),
  serviceAccountDescriptions,
);

/** Secret defaults: `type: Opaque`; `stringData` is write-only and merged into `data`. */
/** Deletes the named maps when empty: Go's `omitempty` never writes `data: {}`. */
function dropEmptyMaps(object: KubeObject, fields: string[]): void {
  for (const field of fields) {
    const value = object[field];
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) delete object[field];
  }
}

function defaultSecret(object: KubeObject): void {
  if (!object.type) object.type = 'Opaque';
  const stringData = object.stringData as Record<string, string> | undefined;
  if (stringData) {
    const data = (object.data as Record<string, string> | undefined) ?? {};
    for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value).toString('base64');
    object.data = data;
    delete object.stringData;
  }
  dropEmptyMaps(object, ['data']);
}

const dataKeyPattern = /^[-._a-zA-Z0-9]+$/;

function validateDataKeys(object: KubeObject, field: 'data' | 'binaryData'): FieldError[] {
  const data = object[field] as Record<string, unknown> | undefined;
  if (!data) return [];
  return Object.keys(data)
    .filter((key) => !dataKeyPattern.test(key) || key.length > 253)
    .map((key) => ({
      field: `${field}[${key}]`,
      type: 'FieldValueInvalid',
      value: key,
      detail: "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    }));
}

function validateImmutable(object: KubeObject, old: KubeObject): FieldError[] {
  if (old.immutable !== true) return [];
  const errors: FieldError[] = [];
  if (object.immutable !== true) errors.push({ field: 'immutable', type: 'FieldValueForbidden', detail: 'field is immutable when `immutable` is set' });
  for (const field of ['data', 'binaryData'] as const) {
    if (JSON.stringify(object[field] ?? {}) !== JSON.stringify(old[field] ?? {})) {
      errors.push({ field, type: 'FieldValueForbidden', detail: 'field is immutable when `immutable` is set' });
    }
  }
  return errors;
}

/** Scheme registrations of the core/v1 kinds served here. */
export const coreKinds: KindDefinition[] = [
  {
    ...core,
    kind: 'Namespace',
    schema: namespaceSchema,
    // The scheme runs a defaulter only on a well-typed object: status, spec and labels are maps here.
    defaulter: (object) => {
      const status = (object.status ??= {}) as { phase?: string };
      status.phase ??= 'Active';
      object.spec ??= {};
      const labels = (object.metadata.labels ??= {});
      if (object.metadata.name) labels['kubernetes.io/metadata.name'] = object.metadata.name;
    },
  },
  { ...core, kind: 'ConfigMap', schema: configMapSchema, defaulter: (object) => dropEmptyMaps(object, ['data', 'binaryData']) },
  { ...core, kind: 'Secret', schema: secretSchema, defaulter: defaultSecret },
  { ...core, kind: 'Event', schema: eventSchema },
  { ...core, kind: 'ServiceAccount', schema: serviceAccountSchema },
];

const eventFields = (object: KubeObject) => {
  const source = (object.source ?? {}) as { component?: string };
  return {
    labels: object.metadata.labels ?? {},
    fields: {
      'metadata.name': object.metadata.name ?? '',
      'metadata.namespace': object.metadata.namespace ?? '',
      ...objectReferenceFields('involvedObject', object.involvedObject),
      reason: (object.reason as string | undefined) ?? '',
      reportingComponent: (object.reportingComponent as string | undefined) ?? '',
      source: source.component ?? '',
      type: (object.type as string | undefined) ?? '',
    },
  };
};

/** The fields of an Event `--field-selector` may use besides metadata's (upstream's event ToSelectableFields). */
const eventSelectableFields = Object.keys(eventFields({ apiVersion: 'v1', kind: 'Event', metadata: {} }).fields).filter((field) => !field.startsWith('metadata.'));

/** The core/v1 resources (namespaces have their own lifecycle strategy, added by the server). */
export const coreResources: ResourceDefinition[] = [
  {
    group: '',
    resource: 'namespaces',
    tracksGeneration: false,
    kind: 'Namespace',
    namespaced: false,
    nameValidator: nameIsDNSLabel,
    shortNames: ['ns'],
    versions: ['v1'],
    // Upstream's namespace storage has no DeleteCollection: one call must not terminate every namespace.
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: { status: true, replaceOnly: ['finalize'] },
    printerColumns: [
      { name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'The phase of the namespace' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
  {
    group: '',
    resource: 'configmaps',
    // As upstream's store (no ReturnDeletedObject): a DELETE answers with a Status.
    returnDeletedObject: false,
    tracksGeneration: false,
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
    versions: ['v1'],
    printerColumns: [
      { name: 'Data', type: 'integer', jsonPath: '.data', cell: (object) => sizeOf(object.data) + sizeOf(object.binaryData), description: 'Number of data entries' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: {
      validate: (object) => [
        ...validateDataKeys(object, 'data'),
        ...validateDataKeys(object, 'binaryData'),
        ...validateConfigMapContents(object),
      ],
      validateUpdate: (object, old) => [
        ...validateDataKeys(object, 'data'),
        ...validateDataKeys(object, 'binaryData'),
        ...validateConfigMapContents(object),
        ...validateImmutable(object, old),
      ],
    },
  },
  {
    group: '',
    resource: 'secrets',
    // As upstream's store (no ReturnDeletedObject): a DELETE answers with a Status.
    returnDeletedObject: false,
    tracksGeneration: false,
    kind: 'Secret',
    namespaced: true,
    versions: ['v1'],
    printerColumns: [
      { name: 'Type', type: 'string', jsonPath: '.type' },
      { name: 'Data', type: 'integer', jsonPath: '.data', cell: (object) => sizeOf(object.data) },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    selectableFields: ['type'],
    strategy: {
      getAttributes: (object) => ({
        labels: object.metadata.labels ?? {},
        fields: {
          'metadata.name': object.metadata.name ?? '',
          'metadata.namespace': object.metadata.namespace ?? '',
          type: (object.type as string | undefined) ?? '',
        },
      }),
      validate: (object) => [...validateDataKeys(object, 'data'), ...validateSecretContents(object)],
      validateUpdate: (object, old) => {
        const errors = [...validateDataKeys(object, 'data'), ...validateSecretContents(object), ...validateImmutable(object, old)];
        if (object.type !== old.type) errors.push({ field: 'type', type: 'FieldValueInvalid', value: object.type, detail: 'field is immutable' });
        return errors;
      },
    },
  },
  {
    group: '',
    resource: 'events',
    // As upstream's store (no ReturnDeletedObject): a DELETE answers with a Status.
    returnDeletedObject: false,
    tracksGeneration: false,
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    versions: ['v1'],
    // Upstream's event printer: OBJECT is `configmap/name`.
    printerColumns: eventPrinterColumns({ lastSeen: 'lastTimestamp', object: 'involvedObject', message: 'message' }),
    selectableFields: eventSelectableFields,
    strategy: { getAttributes: eventFields, validate: (object) => validateEvent(object), validateUpdate: (object) => validateEvent(object) },
  },
  {
    group: '',
    resource: 'serviceaccounts',
    tracksGeneration: false,
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    versions: ['v1'],
    // TokenRequest (`kubectl create token`) is served by the service account token filter.
    subresources: { servedElsewhere: [{ name: 'token', kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] }] },
    printerColumns: [
      { name: 'Secrets', type: 'integer', jsonPath: '.secrets', cell: (object) => sizeOf(object.secrets) },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
];
