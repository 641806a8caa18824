import type { FieldError, KubeObject, NameValidator } from '@kapi/apimachinery';
import type { Authorizer, UserInfo } from '@kapi/filters';
import type { AttributesFunc } from '@kapi/storage';
import type { AsyncConverter } from './registry/async-converter.js';

/** The REST verbs a resource can serve. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** A `kubectl get` column (CRD additionalPrinterColumns / metav1.TableColumnDefinition). */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  /** 0 is shown by default, >0 only with `-o wide`. */
  priority?: number;
  /**
   * Simple JSONPath into the object, e.g. `.spec.replicas` or `.metadata.creationTimestamp`. Under an
   * `integer` column a map or list is shown as its size; `date` cells are rendered as ages.
   */
  jsonPath: string;
  /**
   * Which values of a `string` column's path the cell shows: all of them, comma-separated (the default), or
   * the first, as upstream's custom resource table convertor does (a CRD's `additionalPrinterColumns`).
   */
  matches?: 'all' | 'first';
  /**
   * Computes the cell instead of `jsonPath` (a built-in table convertor's column, e.g. APIService's
   * `Service` shown as `Local` or `<namespace>/<name>`); `null` renders as `<none>`.
   */
  cell?: (object: KubeObject) => string | number | boolean | null;
}

/** A subresource served outside the resource's routes, as discovery lists it. */
export interface ExternalSubresource {
  /** The subresource's name (`token`). */
  name: string;
  /** The kind it takes and answers. */
  kind: { group: string; version: string; kind: string };
  verbs: Verb[];
}

/** Where a `/scale` subresource finds its Scale's fields in the object (simple JSON paths, `.spec.replicas`). */
export interface ScaleSubresource {
  /** Scale `spec.replicas`; a Scale write sets it. */
  specReplicasPath: string;
  /** Scale `status.replicas` (0 when absent). */
  statusReplicasPath: string;
  /** Scale `status.selector`, a label selector in string form ('' when absent). */
  labelSelectorPath?: string;
}

/** What a strategy hook knows about the request. */
export interface RequestScope {
  user?: UserInfo;
  /**
   * The server's one authorizer (the one its authorization filter asks), for decisions inside a request:
   * RBAC escalation checks, access reviews. Absent when the server runs without authorization.
   */
  authorizer?: Authorizer;
  namespace: string;
  name: string;
  /** '' or 'status'. */
  subresource: string;
  dryRun: boolean;
  /** Adds a `Warning` header to the response (absent for internal writes). */
  warn?: (message: string) => void;
  /** Adds an annotation to the request's audit event (absent for internal writes). */
  annotate?: (key: string, value: string) => void;
  /** The version the request reads and writes the resource in (absent for internal writes). */
  version?: string;
  /**
   * Converts an object of this resource (any served version) to `version`, through the scheme or the
   * definition's converter, without changing it (e.g. for admission webhooks that ask in another version).
   */
  convert?: (object: KubeObject, version: string) => Promise<KubeObject>;
}

/**
 * Per-resource behaviour (the strategy object of k8s.io/apiserver's registry). Every hook is optional;
 * hooks receive objects in the hub (internal) version, already defaulted by the scheme.
 */
export interface ResourceStrategy {
  /** Clears fields a create may not set (e.g. `status` when there is a status subresource) and sets initial ones. */
  prepareForCreate?(object: KubeObject, scope: RequestScope): void;
  /** Same for update; `old` is the stored object. */
  prepareForUpdate?(object: KubeObject, old: KubeObject, scope: RequestScope): void;
  /** Validation beyond the schema, on create. */
  validate?(object: KubeObject, scope: RequestScope): FieldError[];
  /** Validation beyond the schema, on update (immutable fields...). */
  validateUpdate?(object: KubeObject, old: KubeObject, scope: RequestScope): FieldError[];
  /**
   * Mutating admission (e.g. admission webhooks), before validation: receives the request's object in the
   * version the client sent, defaulted, and `old` (the stored object, same version) on update; returns the
   * object to go on with (the same one changed, or a new one), or throws a StatusError to refuse. Unlike
   * the other hooks, it sees the request version, not the hub.
   */
  mutate?(
    operation: 'create' | 'update',
    object: KubeObject,
    old: KubeObject | undefined,
    scope: RequestScope,
  ): Promise<KubeObject> | KubeObject;
  /** Checks that need other state (e.g. the namespace exists and is not terminating); throw a StatusError to refuse. */
  admit?(
    operation: 'create' | 'update' | 'delete',
    object: KubeObject,
    old: KubeObject | undefined,
    scope: RequestScope,
  ): Promise<void> | void;
  /**
   * Called when a create or update whose `admit` passed was not stored after all (the name was taken,
   * the update conflicted and is tried again, storage failed), with the same arguments: gives back what
   * `admit` set aside for it (e.g. a Service's cluster IP and node ports), as upstream's REST transactions
   * revert. Errors it throws are ignored.
   */
  abandon?(
    operation: 'create' | 'update',
    object: KubeObject,
    old: KubeObject | undefined,
    scope: RequestScope,
  ): Promise<void> | void;
  /**
   * Called on the first DELETE of an object (no deletionTimestamp yet) with a copy it may change: finalizers
   * it adds make the DELETE mark the object instead of removing it (e.g. a CRD's instance-cleanup finalizer
   * and its Terminating condition). The marked copy is what is stored.
   */
  prepareForDelete?(object: KubeObject): void;
  /**
   * Finalizers `object` still waits on besides `metadata.finalizers` (e.g. a namespace's
   * `spec.finalizers`): while true, a DELETE only marks it (deletionTimestamp), and the update that makes
   * it false on a marked object removes it, as emptying metadata.finalizers does.
   */
  hasPendingFinalizers?(object: KubeObject): boolean;
  /** Label/field attributes for selectors; defaults to labels plus metadata.name/namespace. */
  getAttributes?: AttributesFunc;
  /** PUT of a missing object creates it (e.g. leases). Default false. */
  allowCreateOnUpdate?: boolean;
  /** PUT without metadata.resourceVersion is allowed (last write wins). Default true, as upstream's most resources. */
  allowUnconditionalUpdate?: boolean;
}

/**
 * Declares one resource; the generic REST store serves it. Its kind must be registered in the server's
 * scheme at every version in `versions`.
 */
export interface ResourceDefinition {
  group: string;
  /** Plural, lower case: `horizontalpodautoscalers`. */
  resource: string;
  kind: string;
  /** Default `<kind>List`. */
  listKind?: string;
  /** Default: lower-case kind. */
  singularName?: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Served versions, preferred first. */
  versions: string[];
  /** The version written to storage; default: the first served version. */
  storageVersion?: string;
  /** Default: all eight verbs. */
  verbs?: Verb[];
  /**
   * A `/status` subresource: the main resource ignores status changes, `/status` ignores everything else.
   * A `/scale` subresource: an autoscaling/v1 Scale mapped onto the object (a CRD's `subresources.scale`).
   * `replaceOnly`: subresources served by PUT alone, a replace of the whole object in which the strategy's
   * `prepareForUpdate` (seeing `scope.subresource`) decides what changes, as upstream's
   * `namespaces/finalize`.
   * `servedElsewhere`: subresources a filter or another handler serves, which discovery lists (e.g.
   * `serviceaccounts/token`, a create of an authentication.k8s.io/v1 TokenRequest); the resource's routes
   * do not serve them.
   */
  subresources?: { status?: boolean; scale?: ScaleSubresource; replaceOnly?: string[]; servedElsewhere?: ExternalSubresource[] };
  /** Columns for `kubectl get`; the default is Name (+ Namespace when listing all) and Age. */
  printerColumns?: PrinterColumn[];
  strategy?: ResourceStrategy;
  /**
   * Whether writes keep `metadata.generation` (1 on create, one more on each change besides metadata and
   * status), as the upstream strategies of spec-and-status kinds do (Deployments, HPAs, CRDs, custom
   * resources). Default true. With false, as for upstream's ConfigMaps, Secrets, Services and RBAC
   * objects, the server does not set it: a create keeps what the client sent and an update keeps the
   * stored value.
   */
  tracksGeneration?: boolean;
  /**
   * A virtual resource: nothing is stored and only `create` is served, by this function (e.g.
   * SelfSubjectAccessReview). Its verbs default to `['create']`.
   */
  virtual?: { create(object: KubeObject, scope: RequestScope): Promise<KubeObject> | KubeObject };
  /** Validates metadata.name / generateName; default DNS-1123 subdomain (namespaces: label; RBAC: path segment). */
  nameValidator?: NameValidator;
  /** Storage key prefix for this resource; default `/<resource>` (`/<group>/<resource>` for non-core groups is allowed). */
  storagePrefix?: string;
  /**
   * DELETE answers with the deleted object (true, the default, as pods and custom resources) or with a
   * `Status` Success naming it (false, as most other built-ins).
   */
  returnDeletedObject?: boolean;
  /**
   * Fields `?fieldSelector=` may use besides `metadata.name` and `metadata.namespace` (their values
   * come from `strategy.getAttributes`); others are refused with 400 `field label not supported: <f>`.
   */
  selectableFields?: string[];
  /**
   * Sent as a `Warning` header (299) on every request at this version (a CRD version's
   * `deprecationWarning`, set per version through {@link versionOverrides}).
   */
  deprecationWarning?: string;
  /**
   * What differs at one version (a CRD's per-version subresources, printer columns, selectable fields and
   * deprecation): requests at that version and its discovery entry see these instead.
   */
  versionOverrides?: Record<string, VersionOverrides>;
  /**
   * Converts between versions asynchronously (a CRD's conversion webhook) instead of the scheme's
   * synchronous conversions, which the server then never calls for this resource.
   */
  converter?: AsyncConverter;
  /**
   * A CustomResourceDefinition's resource: its OpenAPI definitions are named from the reversed group
   * (`io.k8s.networking.gateway.v1.HTTPRoute`), as upstream names custom resources, never after a
   * built-in API package (`io.k8s.api.<group>`).
   */
  customResource?: boolean;
}

/** The parts of a {@link ResourceDefinition} that may differ per version. */
export type VersionOverrides = Pick<ResourceDefinition, 'subresources' | 'printerColumns' | 'selectableFields' | 'deprecationWarning'>;

/** The definition as served at `version` (its {@link ResourceDefinition.versionOverrides} applied). */
export function definitionAt(definition: ResourceDefinition, version: string): ResourceDefinition {
  const overrides = definition.versionOverrides?.[version];
  return overrides ? { ...definition, ...overrides } : definition;
}
