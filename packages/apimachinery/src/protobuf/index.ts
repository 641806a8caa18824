export type {
  ProtobufScalarType,
  ProtobufFieldType,
  ProtobufFieldDescriptor,
  ProtobufMessageDescriptor,
  ProtobufFieldOptions,
} from './message-descriptor.js';
export {
  protobufField,
  protobufRepeatedField,
  protobufMapField,
  protobufMessage,
} from './message-descriptor.js';
export type { ProtobufFieldTag } from './wire-reader.js';
export { WireReader, WireType, ProtobufWireError } from './wire-reader.js';
export { decodeProtobufMessage, formatProtobufTimestamp } from './decode-message.js';
export type { KubernetesEnvelope } from './kubernetes-envelope.js';
export {
  KUBERNETES_PROTOBUF_MAGIC,
  PROTOBUF_MEDIA_TYPE,
  isProtobufMediaType,
  hasKubernetesMagic,
  decodeKubernetesEnvelope,
} from './kubernetes-envelope.js';
export type { ProtobufRegistryOptions } from './protobuf-registry.js';
export { ProtobufRegistry } from './protobuf-registry.js';
export {
  objectMetaDescriptor,
  ownerReferenceDescriptor,
  managedFieldsEntryDescriptor,
  listMetaDescriptor,
  labelSelectorDescriptor,
  labelSelectorRequirementDescriptor,
  conditionDescriptor,
  deleteOptionsDescriptor,
  preconditionsDescriptor,
} from './meta-descriptors.js';
