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
