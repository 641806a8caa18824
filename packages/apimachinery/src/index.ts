export type {
  TypeMeta,
  OwnerReference,
  ObjectMeta,
  ListMeta,
  KubeObject,
  KubeList,
  StatusCause,
  StatusDetails,
  Status,
  StatusReason,
  Condition,
  WatchEventType,
  WatchEvent,
} from './meta-types.js';
export { INITIAL_EVENTS_END_ANNOTATION, isKubeObject } from './meta-types.js';
export type { GroupVersion, GroupVersionKind, GroupVersionResource, GroupResource } from './group-version.js';
export {
  groupVersionString,
  parseGroupVersion,
  groupResourceString,
  groupVersionKindString,
  groupVersionResourceString,
} from './group-version.js';
export type { Selector } from './selector.js';
export { KapiError } from './kapi-error.js';
export type { FieldError } from './status-error.js';
export {
  StatusError,
  fieldErrorMessage,
  registerStatusConverter,
  toStatusError,
  toStatus,
} from './status-error.js';
export type { TSchema, Static, TObject, TProperties } from '@sinclair/typebox';
export { Type } from '@sinclair/typebox';
export type {
  LabelOperator,
  LabelRequirement,
  LabelSelector,
  LabelSelectorObject,
} from './label-selector.js';
export {
  parseLabelSelector,
  labelSelectorFromObject,
  labelSelectorOf,
  newLabelRequirement,
  requirementString,
  everything,
  nothing,
} from './label-selector.js';
export type { FieldRequirement, FieldSelector } from './field-selector.js';
export {
  parseFieldSelector,
  fieldSelectorOf,
  escapeFieldValue,
  unescapeFieldValue,
} from './field-selector.js';
export type { NameValidator } from './name-validation.js';
export {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
  maxLengthError,
  regexError,
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
} from './name-validation.js';
export type { ValidateObjectMetaOptions } from './validate-object-meta.js';
export {
  validateObjectMeta,
  validateLabels,
  validateAnnotations,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
} from './validate-object-meta.js';
export { generateName, GENERATE_NAME_ALPHABET } from './generate-name.js';
export { storageVersionHash } from './storage-version-hash.js';
export { sameJson } from './json-equal.js';
export type { ConditionInput } from './conditions.js';
export { setCondition, findCondition, formatTime } from './conditions.js';
export type {
  KubernetesSchemaExtensions,
  KindSchemaOptions,
  KindSchema,
  KindBaseProperties,
  KindListProperties,
} from './kind-schema.js';
export {
  objectMetaSchema,
  listMetaSchema,
  ownerReferenceSchema,
  managedFieldsEntrySchema,
  kindSchema,
  labelSelectorSchema,
  kindListSchema,
} from './kind-schema.js';
export type {
  KindDefinition,
  ConversionDefinition,
  StorageVersionInfo,
  UnknownFieldReport,
} from './scheme-types.js';
export { Scheme } from './scheme.js';
export type { SchemeCodec, SchemeCodecOptions } from './scheme-codec.js';
export { codePointLength, hasTypeMismatch, validateAgainstSchema } from './schema-validation.js';
export { compiledPattern, type PatternMatcher } from './json-schema.js';
export { applySchemaDefaults } from './schema-defaults.js';
export { findUnknownSchemaFields } from './schema-unknown-fields.js';
export { findDuplicateFields } from './duplicate-fields.js';
export type { UnknownFieldOptions } from './schema-unknown-fields.js';
export type {
  ProtobufScalarType,
  ProtobufFieldType,
  ProtobufFieldDescriptor,
  ProtobufMessageDescriptor,
  ProtobufFieldOptions,
  ProtobufFieldTag,
  KubernetesEnvelope,
  ProtobufRegistryOptions,
} from './protobuf/index.js';
export {
  protobufField,
  protobufRepeatedField,
  protobufMapField,
  protobufMessage,
  WireReader,
  WireType,
  ProtobufWireError,
  decodeProtobufMessage,
  formatProtobufTimestamp,
  KUBERNETES_PROTOBUF_MAGIC,
  PROTOBUF_MEDIA_TYPE,
  isProtobufMediaType,
  hasKubernetesMagic,
  decodeKubernetesEnvelope,
  ProtobufRegistry,
  objectMetaDescriptor,
  ownerReferenceDescriptor,
  managedFieldsEntryDescriptor,
  listMetaDescriptor,
  labelSelectorDescriptor,
  labelSelectorRequirementDescriptor,
  conditionDescriptor,
  deleteOptionsDescriptor,
  preconditionsDescriptor,
} from './protobuf/index.js';
export { withFieldDescriptions } from './field-descriptions.js';
export type { FieldDescriptions } from './field-descriptions.js';
