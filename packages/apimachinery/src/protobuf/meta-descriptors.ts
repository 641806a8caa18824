/**
 * Protobuf descriptors of meta.k8s.io/v1 types, with field numbers from
 * k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto.
 */
import {
  protobufMessage,
  protobufField as field,
  protobufMapField as mapField,
  protobufRepeatedField as repeatedField,
  type ProtobufMessageDescriptor,
} from './message-descriptor.js';

const keep = { keepZero: true } as const;

/** metav1.OwnerReference. */
export const ownerReferenceDescriptor: ProtobufMessageDescriptor = protobufMessage('OwnerReference', {
  5: field('apiVersion', 'string', keep),
  1: field('kind', 'string', keep),
  3: field('name', 'string', keep),
  4: field('uid', 'string', keep),
  6: field('controller', 'bool', keep),
  7: field('blockOwnerDeletion', 'bool', keep),
});

/** metav1.ManagedFieldsEntry; `fieldsV1` (FieldsV1 {Raw = 1}) becomes the parsed JSON object. */
export const managedFieldsEntryDescriptor: ProtobufMessageDescriptor = protobufMessage('ManagedFieldsEntry', {
  1: field('manager', 'string'),
  2: field('operation', 'string'),
  3: field('apiVersion', 'string'),
  4: field('time', 'time', keep),
  6: field('fieldsType', 'string'),
  7: field('fieldsV1', 'rawExtension'),
  8: field('subresource', 'string'),
});

/** metav1.ObjectMeta. */
export const objectMetaDescriptor: ProtobufMessageDescriptor = protobufMessage('ObjectMeta', {
  1: field('name', 'string'),
  2: field('generateName', 'string'),
  3: field('namespace', 'string'),
  4: field('selfLink', 'string'),
  5: field('uid', 'string'),
  6: field('resourceVersion', 'string'),
  7: field('generation', 'int64'),
  8: field('creationTimestamp', 'time'),
  9: field('deletionTimestamp', 'time'),
  10: field('deletionGracePeriodSeconds', 'int64', keep),
  11: mapField('labels', 'string'),
  12: mapField('annotations', 'string'),
  13: repeatedField('ownerReferences', ownerReferenceDescriptor),
  14: repeatedField('finalizers', 'string'),
  17: repeatedField('managedFields', managedFieldsEntryDescriptor),
});

/** metav1.ListMeta. */
export const listMetaDescriptor: ProtobufMessageDescriptor = protobufMessage('ListMeta', {
  1: field('selfLink', 'string'),
  2: field('resourceVersion', 'string'),
  3: field('continue', 'string'),
  4: field('remainingItemCount', 'int64', keep),
});

/** metav1.LabelSelectorRequirement. */
export const labelSelectorRequirementDescriptor: ProtobufMessageDescriptor = protobufMessage(
  'LabelSelectorRequirement',
  {
    1: field('key', 'string', keep),
    2: field('operator', 'string', keep),
    3: repeatedField('values', 'string'),
  },
);

/** metav1.LabelSelector. */
export const labelSelectorDescriptor: ProtobufMessageDescriptor = protobufMessage('LabelSelector', {
  1: mapField('matchLabels', 'string'),
  2: repeatedField('matchExpressions', labelSelectorRequirementDescriptor),
});

/** metav1.Condition. */
export const conditionDescriptor: ProtobufMessageDescriptor = protobufMessage('Condition', {
  1: field('type', 'string', keep),
  2: field('status', 'string', keep),
  3: field('observedGeneration', 'int64'),
  4: field('lastTransitionTime', 'time', keep),
  5: field('reason', 'string', keep),
  6: field('message', 'string', keep),
});

/** metav1.Preconditions. */
export const preconditionsDescriptor: ProtobufMessageDescriptor = protobufMessage('Preconditions', {
  1: field('uid', 'string', keep),
  2: field('resourceVersion', 'string', keep),
});

/** metav1.DeleteOptions. */
export const deleteOptionsDescriptor: ProtobufMessageDescriptor = protobufMessage('DeleteOptions', {
  1: field('gracePeriodSeconds', 'int64', keep),
  2: field('preconditions', preconditionsDescriptor),
  3: field('orphanDependents', 'bool', keep),
  4: field('propagationPolicy', 'string', keep),
  5: repeatedField('dryRun', 'string'),
});
