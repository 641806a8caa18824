import { Type, isDNS1035Label, isDNS1123Subdomain, isQualifiedName, kindSchema, type Condition, type FieldError, type KindDefinition, type KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';

/** internal.apiserver.k8s.io/v1alpha1 (KEP-2339). */
export const STORAGE_VERSION_GROUP = 'internal.apiserver.k8s.io';
export const STORAGE_VERSION_VERSION = 'v1alpha1';

/** One apiserver's entry in a StorageVersion. */
export interface ServerStorageVersion {
  apiServerID: string;
  encodingVersion: string;
  decodableVersions: string[];
  servedVersions?: string[];
}

/** The StorageVersion object. */
export interface StorageVersion extends KubeObject {
  spec?: Record<string, never>;
  status?: {
    storageVersions?: ServerStorageVersion[];
    commonEncodingVersion?: string;
    conditions?: Condition[];
  };
}

// Field descriptions are upstream's (kubernetes/kubernetes api/openapi-spec/v3/
// apis__internal.apiserver.k8s.io__v1alpha1_openapi.json), verbatim, for `kubectl explain`.

const serverStorageVersionSchema = Type.Object(
  {
    apiServerID: Type.String({ description: 'apiServerID is the ID of the reporting API server.' }),
    encodingVersion: Type.String({
      description:
        'encodingVersion the API server encodes the object to when persisting it in the backend (e.g., etcd).',
    }),
    decodableVersions: Type.Array(Type.String(), {
      'x-kubernetes-list-type': 'set',
      description:
        'decodableVersions are the encoding versions the API server can handle to decode. The API server can decode objects encoded in these versions. The encodingVersion must be included in the decodableVersions.',
    }),
    servedVersions: Type.Optional(
      Type.Array(Type.String(), {
        'x-kubernetes-list-type': 'set',
        description:
          'servedVersions lists all versions the API server can serve. DecodableVersions must include all ServedVersions.',
      }),
    ),
  },
  {
    description:
      'An API server instance reports the version it can decode and the version it encodes objects to when persisting objects in the backend.',
  },
);

const storageVersionConditionSchema = Type.Object(
  {
    type: Type.String({ description: 'type of the condition.' }),
    status: Type.String({ description: 'status of the condition, one of True, False, Unknown.' }),
    observedGeneration: Type.Optional(
      Type.Integer({
        format: 'int64',
        description:
          'observedGeneration represents the .metadata.generation that the condition was set based upon, if field is set.',
      }),
    ),
    lastTransitionTime: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'lastTransitionTime is the last time the condition transitioned from one status to another.',
      }),
    ),
    reason: Type.String({ description: "reason for the condition's last transition." }),
    message: Type.String({
      description: 'message is a human readable string indicating details about the transition.',
    }),
  },
  { description: 'Describes the state of the storageVersion at a certain point.' },
);

const storageVersionSchema = kindSchema({
  group: STORAGE_VERSION_GROUP,
  version: STORAGE_VERSION_VERSION,
  kind: 'StorageVersion',
  description: 'Storage version of a specific resource.',
  spec: Type.Object(
    {},
    { description: 'spec is an empty spec. It is here to comply with Kubernetes API style.' },
  ),
  status: Type.Object(
    {
      storageVersions: Type.Optional(
        Type.Array(serverStorageVersionSchema, {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['apiServerID'],
          'x-kubernetes-patch-merge-key': 'apiServerID',
          'x-kubernetes-patch-strategy': 'merge',
          description: 'storageVersions lists the reported versions per API server instance.',
        }),
      ),
      commonEncodingVersion: Type.Optional(
        Type.String({
          description:
            "commonEncodingVersion is set to an encoding storage version if all API server instances share that same version. If they don't share one storage version, this field is left empty. API servers should finish updating its storageVersionStatus entry before serving write operations, so that this field will be in sync with the reality.",
        }),
      ),
      conditions: Type.Optional(
        Type.Array(storageVersionConditionSchema, {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          'x-kubernetes-patch-merge-key': 'type',
          'x-kubernetes-patch-strategy': 'merge',
          description: "conditions lists the latest available observations of the storageVersion's state.",
        }),
      ),
    },
    {
      description:
        'status on the version the API server instance can decode from and encode objects to when persisting objects in the backend.',
    },
  ),
});

/** `<group>.<resource>`, with `core` for the empty group. */
export function storageVersionName(group: string, resource: string): string {
  return `${group === '' ? 'core' : group}.${resource}`;
}

/** The common encoding version of a set of entries: the first one's if all agree, else undefined. */
export function computeCommonEncodingVersion(entries: readonly ServerStorageVersion[]): string | undefined {
  const first = entries[0]?.encodingVersion;
  if (first === undefined) return undefined;
  return entries.every((entry) => entry.encodingVersion === first) ? first : undefined;
}

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Upstream's validation of a StorageVersion (k8s pkg/apis/apiserverinternal/validation). */
export function validateStorageVersion(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const name = object.metadata.name ?? '';
  // Groups have dots, resources none: the name splits at its last dot (upstream's ValidateStorageVersionName).
  const dot = name.lastIndexOf('.');
  if (dot < 0) {
    errors.push({ field: 'metadata.name', type: 'FieldValueInvalid', value: name, detail: 'name must be in the form of <group>.<resource>' });
  } else {
    for (const message of isDNS1123Subdomain(name.slice(0, dot)))
      errors.push({ field: 'metadata.name', type: 'FieldValueInvalid', value: name, detail: `the group segment ${message}` });
    for (const message of isDNS1035Label(name.slice(dot + 1)))
      errors.push({ field: 'metadata.name', type: 'FieldValueInvalid', value: name, detail: `the resource segment ${message}` });
  }
  const status = (object as StorageVersion).status ?? {};
  const seen = new Set<string>();
  (status.storageVersions ?? []).forEach((entry, index) => {
    const path = `status.storageVersions[${index}]`;
    if (!entry.apiServerID || entry.apiServerID.length > 253 || !dns1123Subdomain.test(entry.apiServerID)) {
      errors.push({ field: `${path}.apiServerID`, type: 'FieldValueInvalid', value: entry.apiServerID, detail: 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character' });
    }
    if (seen.has(entry.apiServerID)) errors.push({ field: `${path}.apiServerID`, type: 'FieldValueDuplicate', value: entry.apiServerID, detail: '' });
    seen.add(entry.apiServerID);
    const decodable = entry.decodableVersions ?? [];
    if (!decodable.includes(entry.encodingVersion)) {
      errors.push({ field: `${path}.decodableVersions`, type: 'FieldValueInvalid', value: decodable, detail: `decodableVersions must include encodingVersion ${entry.encodingVersion}` });
    }
    for (const served of entry.servedVersions ?? []) {
      if (!decodable.includes(served)) {
        errors.push({ field: `${path}.servedVersions`, type: 'FieldValueInvalid', value: served, detail: `individual served version : ${served} must be included in decodableVersions : ${JSON.stringify(decodable)}` });
      }
    }
  });
  // Upstream's validateCommonVersion: set exactly when every server reports the same encoding version.
  const expected = computeCommonEncodingVersion(status.storageVersions ?? []);
  const common = status.commonEncodingVersion ?? undefined;
  const commonError = (value: unknown, detail: string) => errors.push({ field: 'status.commonEncodingVersion', type: 'FieldValueInvalid', value, detail });
  if (expected === undefined && common !== undefined)
    commonError(common, 'should be nil if servers do not agree on the same encoding version, or if there is no server reporting the supported versions yet');
  else if (expected !== undefined && common === undefined) commonError(null, `the common encoding version is ${expected}`);
  else if (expected !== undefined && common !== expected) commonError(common, `the actual common encoding version is ${expected}`);
  (status.conditions ?? []).forEach((condition, index) => {
    for (const message of isQualifiedName(condition.type ?? ''))
      errors.push({ field: `status.conditions[${index}].type`, type: 'FieldValueInvalid', value: condition.type, detail: message });
    if (!condition.reason) errors.push({ field: `status.conditions[${index}].reason`, type: 'FieldValueRequired', detail: 'reason cannot be empty' });
    if (!condition.message) errors.push({ field: `status.conditions[${index}].message`, type: 'FieldValueRequired', detail: 'message cannot be empty' });
  });
  return errors;
}

/** Scheme registration of StorageVersion. */
export const storageVersionKind: KindDefinition = {
  group: STORAGE_VERSION_GROUP,
  version: STORAGE_VERSION_VERSION,
  kind: 'StorageVersion',
  schema: storageVersionSchema,
  validator: validateStorageVersion,
};

/** The storageversions resource (cluster-scoped, with /status). */
export const storageVersionResource: ResourceDefinition = {
  group: STORAGE_VERSION_GROUP,
  resource: 'storageversions',
  kind: 'StorageVersion',
  namespaced: false,
  versions: [STORAGE_VERSION_VERSION],
  subresources: { status: true },
  // Upstream's strategy for this kind does not keep metadata.generation.
  tracksGeneration: false,
  printerColumns: [
    { name: 'CommonEncodingVersion', type: 'string', jsonPath: '.status.commonEncodingVersion' },
    { name: 'StorageVersions', type: 'string', jsonPath: '.status.storageVersions[*].encodingVersion' },
    { name: 'Servers', type: 'string', jsonPath: '.status.storageVersions[*].apiServerID', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
