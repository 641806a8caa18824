/**
 * Kubernetes object metadata types (meta.k8s.io/v1), as plain JSON shapes.
 * Objects are kept as JSON values end to end; these interfaces name the fields kapi reads.
 */

/** apiVersion and kind, present on every serialized object. */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

/** An owner of an object, used by garbage collection. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** metav1.ObjectMeta. `managedFields` is kept exactly as given. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  selfLink?: string;
}

/** metav1.ListMeta. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** Any Kubernetes object: TypeMeta + ObjectMeta + arbitrary fields (spec, status, data...). */
export interface KubeObject extends TypeMeta {
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** A list of objects (`<Kind>List`). */
export interface KubeList<T extends KubeObject = KubeObject> extends TypeMeta {
  metadata: ListMeta;
  items: T[];
}

/** metav1.StatusCause: one field-level reason of a failure. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** metav1.StatusDetails. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** metav1.Status: the body of every error response. */
export interface Status extends TypeMeta {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** metav1.StatusReason values kapi produces. */
export type StatusReason =
  | ''
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'MethodNotAllowed'
  | 'NotAcceptable';

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The watch event types of the Kubernetes watch protocol. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One event on a watch stream, as sent on the wire. */
export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T | Status;
}

/** Annotation on the bookmark that ends the initial events of a watch-list. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** Returns true when the value looks like a Kubernetes object (has a metadata object). */
export function isKubeObject(value: unknown): value is KubeObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { metadata?: unknown }).metadata === 'object' &&
    (value as { metadata?: unknown }).metadata !== null
  );
}
