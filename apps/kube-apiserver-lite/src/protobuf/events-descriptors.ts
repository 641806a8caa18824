/**
 * Protobuf descriptors of the events.k8s.io/v1 kinds served by kube-apiserver-lite.
 * Field numbers from k8s.io/api/events/v1/generated.proto.
 */
import { objectMetaDescriptor, type ProtobufMessageDescriptor } from '@kapi/apimachinery';
import { eventSourceDescriptor, objectReferenceDescriptor } from './core-descriptors.js';
import { field, message } from './descriptor-helpers.js';

/** events.k8s.io/v1 EventSeries. */
export const eventsV1SeriesDescriptor: ProtobufMessageDescriptor = message('EventSeries', {
  1: field('count', 'int32'),
  2: field('lastObservedTime', 'microTime'),
});

/** events.k8s.io/v1 Event. */
export const eventsV1EventDescriptor: ProtobufMessageDescriptor = message('Event', {
  1: field('metadata', objectMetaDescriptor),
  2: field('eventTime', 'microTime'),
  3: field('series', eventsV1SeriesDescriptor),
  4: field('reportingController', 'string'),
  5: field('reportingInstance', 'string'),
  6: field('action', 'string'),
  7: field('reason', 'string'),
  8: field('regarding', objectReferenceDescriptor),
  9: field('related', objectReferenceDescriptor),
  10: field('note', 'string'),
  11: field('type', 'string'),
  12: field('deprecatedSource', eventSourceDescriptor),
  13: field('deprecatedFirstTimestamp', 'time'),
  14: field('deprecatedLastTimestamp', 'time'),
  15: field('deprecatedCount', 'int32'),
});
