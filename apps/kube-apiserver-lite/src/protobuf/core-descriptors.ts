/**
 * Protobuf descriptors of the core/v1 kinds served by kube-apiserver-lite.
 * Field numbers from k8s.io/api/core/v1/generated.proto.
 */
import { objectMetaDescriptor, type ProtobufMessageDescriptor } from '@kapi/apimachinery';
import { field, keep, mapField, message, repeatedField } from './descriptor-helpers.js';

/** core/v1 ObjectReference. */
export const objectReferenceDescriptor: ProtobufMessageDescriptor = message('ObjectReference', {
  1: field('kind', 'string'),
  2: field('namespace', 'string'),
  3: field('name', 'string'),
  4: field('uid', 'string'),
  5: field('apiVersion', 'string'),
  6: field('resourceVersion', 'string'),
  7: field('fieldPath', 'string'),
});

/** core/v1 LocalObjectReference. */
export const localObjectReferenceDescriptor: ProtobufMessageDescriptor = message('LocalObjectReference', {
  1: field('name', 'string'),
});

/** core/v1 ConfigMap. */
export const configMapDescriptor: ProtobufMessageDescriptor = message('ConfigMap', {
  1: field('metadata', objectMetaDescriptor),
  4: field('immutable', 'bool', keep),
  2: mapField('data', 'string'),
  3: mapField('binaryData', 'bytes'),
});

/** core/v1 Secret. */
export const secretDescriptor: ProtobufMessageDescriptor = message('Secret', {
  1: field('metadata', objectMetaDescriptor),
  5: field('immutable', 'bool', keep),
  2: mapField('data', 'bytes'),
  4: mapField('stringData', 'string'),
  3: field('type', 'string'),
});

/** core/v1 NamespaceCondition. */
export const namespaceConditionDescriptor: ProtobufMessageDescriptor = message('NamespaceCondition', {
  1: field('type', 'string', keep),
  2: field('status', 'string', keep),
  4: field('lastTransitionTime', 'time'),
  5: field('reason', 'string'),
  6: field('message', 'string'),
});

/** core/v1 NamespaceSpec. */
export const namespaceSpecDescriptor: ProtobufMessageDescriptor = message('NamespaceSpec', {
  1: repeatedField('finalizers', 'string'),
});

/** core/v1 NamespaceStatus. */
export const namespaceStatusDescriptor: ProtobufMessageDescriptor = message('NamespaceStatus', {
  1: field('phase', 'string'),
  2: repeatedField('conditions', namespaceConditionDescriptor),
});

/** core/v1 Namespace. */
export const namespaceDescriptor: ProtobufMessageDescriptor = message('Namespace', {
  1: field('metadata', objectMetaDescriptor),
  2: field('spec', namespaceSpecDescriptor),
  3: field('status', namespaceStatusDescriptor),
});

/** core/v1 ServiceAccount. */
export const serviceAccountDescriptor: ProtobufMessageDescriptor = message('ServiceAccount', {
  1: field('metadata', objectMetaDescriptor),
  2: repeatedField('secrets', objectReferenceDescriptor),
  3: repeatedField('imagePullSecrets', localObjectReferenceDescriptor),
  4: field('automountServiceAccountToken', 'bool', keep),
});

/** core/v1 EventSource. */
export const eventSourceDescriptor: ProtobufMessageDescriptor = message('EventSource', {
  1: field('component', 'string'),
  2: field('host', 'string'),
});

/** core/v1 EventSeries. */
export const eventSeriesDescriptor: ProtobufMessageDescriptor = message('EventSeries', {
  1: field('count', 'int32'),
  2: field('lastObservedTime', 'microTime'),
});

/** core/v1 Event. */
export const eventDescriptor: ProtobufMessageDescriptor = message('Event', {
  1: field('metadata', objectMetaDescriptor),
  2: field('involvedObject', objectReferenceDescriptor),
  3: field('reason', 'string'),
  4: field('message', 'string'),
  5: field('source', eventSourceDescriptor),
  6: field('firstTimestamp', 'time'),
  7: field('lastTimestamp', 'time'),
  8: field('count', 'int32'),
  9: field('type', 'string'),
  10: field('eventTime', 'microTime'),
  11: field('series', eventSeriesDescriptor),
  12: field('action', 'string'),
  13: field('related', objectReferenceDescriptor),
  14: field('reportingComponent', 'string', keep),
  15: field('reportingInstance', 'string', keep),
});
