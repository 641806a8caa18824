import type { KubeObject, Selector } from '@kapi/apimachinery';
import type { Authorizer, UserInfo } from '@kapi/filters';
import type { Interface, ResourceVersionMatch } from '@kapi/storage';
import type { ResourceDefinition } from '../resource-definition.js';
import type { SchemeLike } from '../scheme-like.js';

/** Options of a `GenericStore`. */
export interface GenericStoreOptions {
  definition: ResourceDefinition;
  scheme: SchemeLike;
  storage: Interface;
  /** Key prefix of the resource, e.g. `/registry/widgets`. */
  prefix: string;
  /** Injectable clock for creation/deletion timestamps. */
  now?: () => Date;
}

/** Who writes and how. */
export interface WriteContext {
  user?: UserInfo;
  /** The server's one authorizer, handed to strategy hooks (`RequestScope.authorizer`). */
  authorizer?: Authorizer;
  dryRun: boolean;
  /** '' or 'status'. */
  subresource: string;
  /** Adds a `Warning` header to the response (e.g. an admission webhook's warnings). */
  warn?: (message: string) => void;
  /** Adds an annotation to the request's audit event (e.g. an admission policy's auditAnnotations). */
  annotate?: (key: string, value: string) => void;
  /**
   * The field manager of the write (`fieldManager`, else the User-Agent prefix): creates and updates
   * are then recorded in `metadata.managedFields`. Writes without one (internal callers) are not tracked.
   */
  manager?: string;
  /** The object already carries the managedFields of this write (server-side apply computed them). */
  managedFieldsComputed?: boolean;
  /**
   * Set when the caller gives its object away (decoded for this request alone, not used after the call):
   * a create then prepares the object in place instead of a copy, and calls this for a fresh one when it
   * has to prepare it again (its generated name was taken).
   */
  decodeAgain?: () => KubeObject | Promise<KubeObject>;
  /**
   * The caller only reads the object a create returns (it answers the request with it): the store may
   * return the very object its watch cache keeps (no copy). Never set where the result may be changed.
   */
  readOnlyResult?: boolean;
}

/** Selection and paging of a list, watch or deletecollection. */
export interface ListParameters {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  labelSelector?: Selector;
  fieldSelector?: Selector;
  limit?: number;
  continue?: string;
}

/**
 * A new object for PUT, or a function of the current object (in the request version) for PATCH. With
 * `allowCreate`, a missing object is passed as an empty object of the kind with `exists` false.
 */
export type UpdateInput =
  | KubeObject
  | ((current: KubeObject, exists: boolean) => KubeObject | Promise<KubeObject>);

/** Options of `GenericStore.update`. */
export interface UpdateOptions {
  /** Create when missing even for a function input (server-side apply). */
  allowCreate?: boolean;
}

/** The outcome of a delete: the object's last state, and whether it is gone (or only marked). */
export interface DeleteResult {
  object: KubeObject;
  deleted: boolean;
}
