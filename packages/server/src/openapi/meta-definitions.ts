/**
 * OpenAPI definitions of the k8s.io/apimachinery meta types that kind schemas reference, named as upstream
 * (`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`...). `ref(name)` builds the `$ref` for the document
 * flavour (`#/definitions/` in Swagger 2.0, `#/components/schemas/` in OpenAPI 3).
 */

/** A JSON/OpenAPI schema object. */
export type JSONSchema = Record<string, unknown>;

const metaPrefix = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Upstream definition names of the meta types. */
export const metaNames = {
  objectMeta: `${metaPrefix}.ObjectMeta`,
  listMeta: `${metaPrefix}.ListMeta`,
  ownerReference: `${metaPrefix}.OwnerReference`,
  managedFieldsEntry: `${metaPrefix}.ManagedFieldsEntry`,
  time: `${metaPrefix}.Time`,
  status: `${metaPrefix}.Status`,
  statusDetails: `${metaPrefix}.StatusDetails`,
  statusCause: `${metaPrefix}.StatusCause`,
  deleteOptions: `${metaPrefix}.DeleteOptions`,
  preconditions: `${metaPrefix}.Preconditions`,
  patch: `${metaPrefix}.Patch`,
  watchEvent: `${metaPrefix}.WatchEvent`,
  fieldsV1: `${metaPrefix}.FieldsV1`,
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
} as const;

const string = (description: string): JSONSchema => ({ type: 'string', description });
const apiVersionDescription =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const kindDescription =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** Descriptions upstream gives the common top-level fields. */
export const commonDescriptions = {
  apiVersion: apiVersionDescription,
  kind: kindDescription,
  metadata: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  listMetadata: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
} as const;

/** The meta type definitions, keyed by upstream name. */
export function metaDefinitions(ref: (name: string) => string): Record<string, JSONSchema> {
  const refTo = (name: string, description?: string): JSONSchema =>
    description ? { $ref: ref(name), description } : { $ref: ref(name) };
  const stringMap = (description: string): JSONSchema => ({ type: 'object', description, additionalProperties: { type: 'string', default: '' } });
  return {
    [metaNames.time]: { type: 'string', format: 'date-time', description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.' },
    [metaNames.fieldsV1]: { type: 'object', description: 'FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.' },
    [metaNames.ownerReference]: {
      type: 'object',
      description: 'OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.',
      required: ['apiVersion', 'kind', 'name', 'uid'],
      properties: {
        apiVersion: string('API version of the referent.'),
        kind: string('Kind of the referent.'),
        name: string('Name of the referent.'),
        uid: string('UID of the referent.'),
        controller: { type: 'boolean', description: 'If true, this reference points to the managing controller.' },
        blockOwnerDeletion: { type: 'boolean', description: 'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.' },
      },
      'x-kubernetes-map-type': 'atomic',
    },
    [metaNames.managedFieldsEntry]: {
      type: 'object',
      description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
      properties: {
        apiVersion: string('APIVersion defines the version of this resource that this field set applies to.'),
        fieldsType: string('FieldsType is the discriminator for the different fields format and version.'),
        fieldsV1: refTo(metaNames.fieldsV1, 'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.'),
        manager: string('Manager is an identifier of the workflow managing these fields.'),
        operation: string('Operation is the type of operation which lead to this ManagedFieldsEntry being created.'),
        subresource: string('Subresource is the name of the subresource used to update that object.'),
        time: refTo(metaNames.time, 'Time is the timestamp of when the ManagedFields entry was added.'),
      },
    },
    [metaNames.objectMeta]: {
      type: 'object',
      description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
      properties: {
        annotations: stringMap('Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.'),
        creationTimestamp: refTo(metaNames.time, 'CreationTimestamp is a timestamp representing the server time when this object was created.'),
        deletionGracePeriodSeconds: { type: 'integer', format: 'int64', description: 'Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.' },
        deletionTimestamp: refTo(metaNames.time, 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.'),
        finalizers: { type: 'array', items: { type: 'string', default: '' }, description: 'Must be empty before the object is deleted from the registry.', 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
        generateName: string('GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
        generation: { type: 'integer', format: 'int64', description: 'A sequence number representing a specific generation of the desired state.' },
        labels: stringMap('Map of string keys and values that can be used to organize and categorize (scope and select) objects.'),
        managedFields: { type: 'array', items: refTo(metaNames.managedFieldsEntry), description: 'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.', 'x-kubernetes-list-type': 'atomic' },
        name: string('Name must be unique within a namespace.'),
        namespace: string('Namespace defines the space within which each name must be unique.'),
        ownerReferences: {
          type: 'array',
          items: refTo(metaNames.ownerReference),
          description: 'List of objects depended by this object.',
          'x-kubernetes-list-map-keys': ['uid'],
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-patch-merge-key': 'uid',
          'x-kubernetes-patch-strategy': 'merge',
        },
        resourceVersion: string('An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed.'),
        selfLink: string('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
        uid: string('UID is the unique in time and space value for this object.'),
      },
    },
    [metaNames.listMeta]: {
      type: 'object',
      description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
      properties: {
        continue: string('continue may be set if the user set a limit on the number of items returned.'),
        remainingItemCount: { type: 'integer', format: 'int64', description: 'remainingItemCount is the number of subsequent items in the list which are not included in this list response.' },
        resourceVersion: string("String that identifies the server's internal version of this object."),
        selfLink: string('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
      },
    },
    [metaNames.statusCause]: {
      type: 'object',
      description: 'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.',
      properties: { field: string('The field of the resource that has caused this error.'), message: string('A human-readable description of the cause of the error.'), reason: string('A machine-readable description of the cause of the error.') },
    },
    [metaNames.statusDetails]: {
      type: 'object',
      description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
      properties: {
        causes: { type: 'array', items: refTo(metaNames.statusCause), description: 'The Causes array includes more details associated with the StatusReason failure.', 'x-kubernetes-list-type': 'atomic' },
        group: string('The group attribute of the resource associated with the status StatusReason.'),
        kind: string('The kind attribute of the resource associated with the status StatusReason.'),
        name: string('The name attribute of the resource associated with the status StatusReason.'),
        retryAfterSeconds: { type: 'integer', format: 'int32', description: 'If specified, the time in seconds before the operation should be retried.' },
        uid: string('UID of the resource.'),
      },
    },
    [metaNames.status]: {
      type: 'object',
      description: 'Status is a return value for calls that don\'t return other objects.',
      properties: {
        apiVersion: string(apiVersionDescription),
        code: { type: 'integer', format: 'int32', description: 'Suggested HTTP return code for this status, 0 if not set.' },
        details: refTo(metaNames.statusDetails, 'Extended data associated with the reason.'),
        kind: string(kindDescription),
        message: string('A human-readable description of the status of this operation.'),
        metadata: refTo(metaNames.listMeta, commonDescriptions.listMetadata),
        reason: string('A machine-readable description of why this operation is in the "Failure" status.'),
        status: string('Status of the operation. One of: "Success" or "Failure".'),
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
    },
    [metaNames.preconditions]: {
      type: 'object',
      description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
      properties: { resourceVersion: string('Specifies the target ResourceVersion'), uid: string('Specifies the target UID.') },
    },
    [metaNames.deleteOptions]: {
      type: 'object',
      description: 'DeleteOptions may be provided when deleting an API object.',
      properties: {
        apiVersion: string(apiVersionDescription),
        dryRun: { type: 'array', items: { type: 'string', default: '' }, description: 'When present, indicates that modifications should not be persisted.', 'x-kubernetes-list-type': 'atomic' },
        gracePeriodSeconds: { type: 'integer', format: 'int64', description: 'The duration in seconds before the object should be deleted.' },
        kind: string(kindDescription),
        orphanDependents: { type: 'boolean', description: 'Deprecated: please use the PropagationPolicy.' },
        preconditions: refTo(metaNames.preconditions, 'Must be fulfilled before a deletion is carried out.'),
        propagationPolicy: string("Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'."),
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'DeleteOptions', version: 'v1' }],
    },
    [metaNames.patch]: { type: 'object', description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.' },
    [metaNames.rawExtension]: { type: 'object', description: 'RawExtension is used to hold extensions in external versions.' },
    [metaNames.watchEvent]: {
      type: 'object',
      description: 'Event represents a single event to a watched resource.',
      required: ['type', 'object'],
      properties: {
        object: refTo(metaNames.rawExtension, 'Object is: * If Type is Added or Modified: the new state of the object. * If Type is Deleted: the state of the object immediately before deletion. * If Type is Error: *Status is recommended; other types may make sense depending on context.'),
        type: { type: 'string', default: '' },
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'WatchEvent', version: 'v1' }],
    },
  };
}
