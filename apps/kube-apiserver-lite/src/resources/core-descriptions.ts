import { type FieldDescriptions } from '@kapi/apimachinery';

// The descriptions upstream publishes for the core/v1 kinds served here (kubernetes/kubernetes
// api/openapi-spec/v3/api__v1_openapi.json), verbatim; field paths as in field-descriptions.ts.

/** The fields of core/v1 ObjectReference under `prefix` (e.g. `involvedObject`, `secrets[]`). */
export const objectReferenceDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.apiVersion`]: 'API version of the referent.',
  [`${prefix}.fieldPath`]:
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
  [`${prefix}.kind`]:
    'Kind of the referent. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  [`${prefix}.name`]:
    'Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names',
  [`${prefix}.namespace`]:
    'Namespace of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/',
  [`${prefix}.resourceVersion`]:
    'Specific resourceVersion to which this reference is made, if any. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency',
  [`${prefix}.uid`]:
    'UID of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#uids',
});

/** Upstream's core/v1 EventSource field texts, for an EventSource at `prefix`. */
export const eventSourceDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.component`]: 'Component from which the event is generated.',
  [`${prefix}.host`]: 'Node name on which the event is generated.',
});

export const configMapDescription = 'ConfigMap holds configuration data for pods to consume.';

export const configMapDescriptions: FieldDescriptions = {
  binaryData:
    "BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', '_' or '.'. BinaryData can contain byte sequences that are not in the UTF-8 range. The keys stored in BinaryData must not overlap with the ones in the Data field, this is enforced during validation process. Using this field will require 1.10+ apiserver and kubelet.",
  data: "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
  immutable:
    'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
};

export const secretDescription =
  'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.';

export const secretDescriptions: FieldDescriptions = {
  data: "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
  immutable:
    'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
  stringData:
    'stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience. All keys and values are merged into the data field on write, overwriting any existing values. The stringData field is never output when reading from the API.',
  type: 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
};

export const serviceAccountDescription =
  'ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets';

export const serviceAccountDescriptions: FieldDescriptions = {
  automountServiceAccountToken:
    'AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted. Can be overridden at the pod level.',
  imagePullSecrets:
    'ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount. ImagePullSecrets are distinct from Secrets because Secrets can be mounted in the pod, but ImagePullSecrets are only accessed by the kubelet. More info: https://kubernetes.io/docs/concepts/containers/images/#specifying-imagepullsecrets-on-a-pod',
  'imagePullSecrets[].name':
    'Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names',
  secrets:
    'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
  ...objectReferenceDescriptions('secrets[]'),
};

export const namespaceDescription =
  'Namespace provides a scope for Names. Use of multiple namespaces is optional.';

export const namespaceDescriptions: FieldDescriptions = {
  spec: 'Spec defines the behavior of the Namespace. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
  'spec.finalizers':
    'Finalizers is an opaque list of values that must be empty to permanently remove object from storage. More info: https://kubernetes.io/docs/tasks/administer-cluster/namespaces/',
  status:
    'Status describes the current status of a Namespace. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
  'status.conditions': "Represents the latest available observations of a namespace's current state.",
  'status.conditions[].status': 'Status of the condition, one of True, False, Unknown.',
  'status.conditions[].type': 'Type of namespace controller condition.',
  'status.phase':
    'Phase is the current lifecycle phase of the namespace. More info: https://kubernetes.io/docs/tasks/administer-cluster/namespaces/',
};

export const eventDescription =
  'Event is a report of an event somewhere in the cluster.  Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.';

export const eventDescriptions: FieldDescriptions = {
  action: 'What action was taken/failed regarding to the Regarding object.',
  count: 'The number of times this event has occurred.',
  eventTime: 'Time when this Event was first observed.',
  firstTimestamp: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
  involvedObject: 'The object that this event is about.',
  ...objectReferenceDescriptions('involvedObject'),
  lastTimestamp: 'The time at which the most recent occurrence of this event was recorded.',
  message: 'A human-readable description of the status of this operation.',
  reason:
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  related: 'Optional secondary object for more complex actions.',
  ...objectReferenceDescriptions('related'),
  reportingComponent: 'Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.',
  reportingInstance: 'ID of the controller instance, e.g. `kubelet-xyzf`.',
  series: "Data about the Event series this event represents or nil if it's a singleton Event.",
  'series.count': 'Number of occurrences in this series up to the last heartbeat time',
  'series.lastObservedTime': 'Time of the last occurrence observed',
  source: 'The component reporting this event. Should be a short machine understandable string.',
  ...eventSourceDescriptions('source'),
  type: 'Type of this event (Normal, Warning), new types could be added in the future',
};
