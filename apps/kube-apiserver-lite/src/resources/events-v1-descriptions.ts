import { type FieldDescriptions } from '@kapi/apimachinery';
import { eventSourceDescriptions, objectReferenceDescriptions } from './core-descriptions.js';

// The descriptions upstream publishes for events.k8s.io/v1 Event (kubernetes/kubernetes
// api/openapi-spec/v3/apis__events.k8s.io__v1_openapi.json), verbatim, for the fields this server's
// schema has; field paths as in field-descriptions.ts. deprecatedSource is a core/v1 EventSource.

export const eventsV1Description =
  'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.';

export const eventsV1Descriptions: FieldDescriptions = {
  action:
    'action is what action was taken/failed regarding to the regarding object. It is machine-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
  deprecatedCount:
    'deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.',
  deprecatedFirstTimestamp:
    'deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
  deprecatedLastTimestamp:
    'deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
  deprecatedSource:
    'deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.',
  ...eventSourceDescriptions('deprecatedSource'),
  eventTime: 'eventTime is the time when this Event was first observed. It is required.',
  note: 'note is a human-readable description of the status of this operation. Maximal length of the note is 1kB, but libraries should be prepared to handle values up to 64kB.',
  reason:
    'reason is why the action was taken. It is human-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
  regarding:
    "regarding contains the object this Event is about. In most cases it's an Object reporting controller implements, e.g. ReplicaSetController implements ReplicaSets and this event is emitted because it acts on some changes in a ReplicaSet object.",
  ...objectReferenceDescriptions('regarding'),
  related:
    'related is the optional secondary object for more complex actions. E.g. when regarding object triggers a creation or deletion of related object.',
  ...objectReferenceDescriptions('related'),
  reportingController:
    'reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for new Events.',
  reportingInstance:
    'reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field cannot be empty for new Events and it can have at most 128 characters.',
  series: "series is data about the Event series this event represents or nil if it's a singleton Event.",
  'series.count': 'count is the number of occurrences in this series up to the last heartbeat time.',
  'series.lastObservedTime':
    'lastObservedTime is the time when last Event from the series was seen before last heartbeat.',
  type: 'type is the type of this event (Normal, Warning), new types could be added in the future. It is machine-readable. This field cannot be empty for new Events.',
};
