import type { KubeObject, Selector, Status } from '@kapi/apimachinery';

/** How a list's resourceVersion is interpreted (metav1.ResourceVersionMatch). */
export type ResourceVersionMatch = '' | 'NotOlderThan' | 'Exact';

/** Preconditions checked against the stored object before a write or delete. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** The label/field attributes a predicate matches against. */
export interface ObjectAttributes {
  labels: Readonly<Record<string, string>>;
  fields: Readonly<Record<string, string>>;
}

/** Extracts the attributes of an object; the default gives its labels and `metadata.name`/`metadata.namespace`. */
export type AttributesFunc = (object: KubeObject) => ObjectAttributes;

/** Which objects a list or watch returns (storage.SelectionPredicate). */
export interface SelectionPredicate {
  label?: Selector;
  field?: Selector;
  /** Page size; 0 or absent means no limit. */
  limit?: number;
  /** A continue token from a previous page. */
  continue?: string;
  /** Watch only: deliver BOOKMARK events. */
  allowWatchBookmarks?: boolean;
  /** How to read labels/fields off an object; defaults to {@link defaultAttributes}. */
  getAttributes?: AttributesFunc;
}

/** Options of {@link Interface.get}. */
export interface GetOptions {
  /** "" (latest, consistent), "0" (any), or a revision the result must be at least as new as. */
  resourceVersion?: string;
  /** Resolve with `undefined` instead of failing with KeyNotFound. */
  ignoreNotFound?: boolean;
}

/** Options of {@link Interface.getList} and {@link Interface.watch}. */
export interface ListOptions {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  predicate?: SelectionPredicate;
  /** Treat the key as a prefix (list/watch every object below it). */
  recursive?: boolean;
  /**
   * Watch only: ask the backend for progress notifications (delivered as BOOKMARK events). A watch cache
   * sends watchers whose predicate allows bookmarks its own progress, at most once a second, instead.
   */
  progressNotify?: boolean;
  /** Watch only: send the current state as ADDED events, then a bookmark annotated `k8s.io/initial-events-end`. */
  sendInitialEvents?: boolean;
  /**
   * Watch only, without selectors: the caller keeps its own copy of the state (as a watch cache does), so
   * the storage need not read each change's previous state. MODIFIED events may then come without
   * `previousObject`, and a DELETED event may carry only `key` and, as its object, the deletion's
   * `metadata.resourceVersion`. Ignored with selectors (their transitions need the previous state).
   */
  omitPrevious?: boolean;
  /** Watch only: aborts the watch. */
  signal?: AbortSignal;
  /**
   * Watch only: when the caller will end the watch (milliseconds since the epoch, the request's
   * `timeoutSeconds`). A watch cache sends bookmark-enabled watchers a BOOKMARK 2 s before it.
   */
  deadline?: number;
}

/** The result of {@link Interface.getList}. */
export interface ListResult {
  items: KubeObject[];
  /** The revision the list was read at. */
  resourceVersion: string;
  /** Token for the next page, when the list was cut by `limit`. */
  continue?: string;
  /** How many items remain after this page (only without selectors). */
  remainingItemCount?: number;
}

/** An event as delivered by {@link Interface.watch}. */
export interface StorageWatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  /** The object (for DELETED: its last state with the deletion revision; for ERROR: a Status). */
  object: KubeObject | Status;
  /** The object before this change, for MODIFIED and DELETED. */
  previousObject?: KubeObject;
  /**
   * Set only on a DELETED event of a watch opened with `omitPrevious` whose storage did not read the last
   * state: the deleted object's storage key (the object then holds only the deletion's resourceVersion).
   */
  key?: string;
}

/**
 * Receives the events of a watch in push mode (see {@link Watch.deliver}), synchronously. Returns false
 * to pause (e.g. the socket asked to wait for `drain`): the events that follow are queued until the
 * consumer calls `deliver` again.
 */
export type WatchReceiver = (event: StorageWatchEvent) => boolean;

/** A running watch: an async iterable of events that ends when the watch stops. */
export interface Watch extends AsyncIterable<StorageWatchEvent> {
  /** Stops the watch; iteration ends after events already queued are drained or dropped. */
  stop(): void;
  /** Resolves once the watch has stopped, for any reason. */
  readonly done: Promise<void>;
  /**
   * Optional: takes up to `max` events that are already queued, without waiting, so a consumer that
   * just received one event can write the ones behind it in the same batch (one flush per burst).
   */
  takeBuffered?(max?: number): readonly StorageWatchEvent[];
  /**
   * Optional push mode, used instead of iterating (a consumer uses one or the other). Hands `receive`
   * the events already queued, at most `max`, in one synchronous run whatever it returns (so they can
   * go out as one batch). Then, if nothing is left queued and `receive` never returned false, keeps it
   * attached: the events that follow are handed to it synchronously as they are produced, with no
   * promise per event, until it returns false. Resolves with false once the watch has ended and every
   * event was handed over; with true when `receive` was detached or events are left queued: call
   * `deliver` again (after waiting for the consumer to drain, if `receive` returned false).
   */
  deliver?(receive: WatchReceiver, max?: number): Promise<boolean>;
  /**
   * Optional: {@link deliver} with the receiver and the outcome in one object, so that a consumer left
   * attached (an idle watch) holds no promise or closures. Returns the outcome at once when the delivery
   * ended in this call (`true`: call again, after waiting to drain if a `receive` returned false; `false`:
   * the watch ended and every event was handed over), or undefined when `consumer` stays attached: the
   * watch then calls `consumer.delivered(more)` or `consumer.deliveryFailed(error)` once, later.
   */
  deliverTo?(consumer: WatchConsumer, max?: number): boolean | undefined;
}

/**
 * A consumer of a watch in push mode ({@link Watch.deliverTo}): the receiver, and what {@link Watch.deliver}'s
 * promise would say, as methods of one object.
 */
export interface WatchConsumer {
  /** Receives one event synchronously; false to pause (as a {@link WatchReceiver}). */
  receive(event: StorageWatchEvent): boolean;
  /** The attached delivery ended: `more` as {@link Watch.deliverTo} returns it. */
  delivered(more: boolean): void;
  /** `receive` threw `error`: the watch has stopped. */
  deliveryFailed(error: unknown): void;
}

/** What {@link Interface.guaranteedUpdate} tells the update function about the current object. */
export interface ResponseMeta {
  /** The stored revision of the current object (0 when it does not exist). */
  resourceVersion: number;
  /** Seconds left of the object's TTL, if it has one. */
  ttlSeconds?: number;
}

/** An update function's result: the new object, optionally with a TTL for it. */
export type UpdateResult = KubeObject | { object: KubeObject; ttlSeconds?: number };

/** Computes the new object from the current one. Throwing aborts the update with that error. */
export type UpdateFunc = (current: KubeObject, meta: ResponseMeta) => UpdateResult | Promise<UpdateResult>;

/** Options of {@link Interface.guaranteedUpdate}. */
export interface GuaranteedUpdateOptions {
  tryUpdate: UpdateFunc;
  /** When the key does not exist, call tryUpdate with an empty object (create-on-update) instead of failing. */
  ignoreNotFound?: boolean;
  preconditions?: Preconditions;
  /**
   * A possibly stale copy of the current object (e.g. from a cache) to try first, saving a read. It is
   * only read, never modified nor returned: a cache may pass the object it holds.
   */
  cachedExistingObject?: KubeObject;
}

/** Options of {@link Interface.delete}. */
export interface DeleteOptions {
  preconditions?: Preconditions;
  /** Called with the current object before deleting; throwing aborts the delete. */
  validateDeletion?: (current: KubeObject) => void | Promise<void>;
  /** As {@link GuaranteedUpdateOptions.cachedExistingObject}; `validateDeletion` may be handed it as it is. */
  cachedExistingObject?: KubeObject;
}

/** Options of {@link Interface.create}. */
export interface CreateOptions {
  /** Delete the object automatically after this many seconds. */
  ttlSeconds?: number;
  /**
   * The caller gives `object` to the store: it neither reads nor changes it once the call has returned
   * (unless the create failed). The store may then return `object` itself, its resourceVersion set, rather
   * than a copy: one copy fewer per create, where a watch event needs its own.
   */
  handOver?: boolean;
  /**
   * With {@link handOver}: the caller only reads the object the call returns (e.g. answers a request with
   * it), so the store may give that very object to its watch events (a watch cache keeps it) instead of a
   * copy: no copy at all. The object must then be plain JSON data (what a parse of its encoding gives).
   */
  shareResult?: boolean;
}

/**
 * The storage contract (k8s.io/apiserver storage.Interface, minus its etcd-only methods).
 * Keys are paths such as `/registry/configmaps/default/a`. Objects carry their revision in
 * `metadata.resourceVersion`; revisions are global, positive and increase with every write.
 */
export interface Interface {
  /**
   * Creates `key`; fails with KeyExists when it exists. Returns the stored object with its resourceVersion
   * (the caller's own copy). `object` must not change until the call settles (the store may read it back
   * rather than parse what it wrote); the same holds for what guaranteedUpdate's `tryUpdate` returns.
   */
  create(key: string, object: KubeObject, options?: CreateOptions): Promise<KubeObject>;
  /** Reads `key`. Fails with KeyNotFound unless `ignoreNotFound`, in which case a missing key gives `undefined`. */
  get(key: string, options?: GetOptions): Promise<KubeObject | undefined>;
  /** Lists `key` (a prefix when `recursive`), honouring resourceVersion semantics, selectors and paging. */
  getList(key: string, options?: ListOptions): Promise<ListResult>;
  /** Watches `key` (a prefix when `recursive`) from a resourceVersion. */
  watch(key: string, options?: ListOptions): Promise<Watch>;
  /**
   * Read-modify-write with optimistic concurrency, retried on conflict. The write is skipped (and the
   * resourceVersion kept) when the new encoded bytes equal the stored ones, unless the stored value is stale.
   */
  guaranteedUpdate(key: string, options: GuaranteedUpdateOptions): Promise<KubeObject>;
  /** Deletes `key`, returning the last state of the object with the deletion's resourceVersion. */
  delete(key: string, options?: DeleteOptions): Promise<KubeObject>;
  /** Counts the objects below the prefix `key`. */
  count(key: string): Promise<number>;
}

/** Capability: ask the backend for a progress notification on every watch now (KEP-2340). */
export interface ProgressRequester {
  /**
   * Asks for a progress notification on every watch, or with `key` at least on every watch of a key
   * under `key` (a cache asks for its resource's prefix; a backend may still notify more, as etcd does).
   */
  requestWatchProgress(key?: string): Promise<void>;
  /**
   * False when a request cannot be honoured safely (e.g. etcd older than 3.4.31 / 3.5.13): callers then
   * serve consistent reads from the storage instead of waiting for periodic progress. Absent means true.
   */
  readonly watchProgressSupported?: boolean;
}

/** Capability: read the backend's current revision (for consistent reads from a cache). */
export interface RevisionReader {
  getCurrentResourceVersion(): Promise<number>;
}

/** Capability: compaction of history older than a revision. */
export interface Compactor {
  compact(revision: number): Promise<void>;
  /** The newest revision compacted away (0 when none). */
  compactRevision(): Promise<number>;
}

/** Capability: releases connections, timers and watches. */
export interface Closer {
  close(): Promise<void>;
}

function has<K extends string>(value: unknown, method: K): value is Record<K, (...args: never[]) => unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[method] === 'function';
}

/** True when the store can request watch progress. */
export function isProgressRequester(store: unknown): store is ProgressRequester {
  return has(store, 'requestWatchProgress') && (store as ProgressRequester).watchProgressSupported !== false;
}

/** True when the store can report its current revision. */
export function isRevisionReader(store: unknown): store is RevisionReader {
  return has(store, 'getCurrentResourceVersion');
}

/** True when the store supports compaction. */
export function isCompactor(store: unknown): store is Compactor {
  return has(store, 'compact') && has(store, 'compactRevision');
}

/** True when the store has resources to release. */
export function isCloser(store: unknown): store is Closer {
  return has(store, 'close');
}

/** Default attributes: the object's labels, and `metadata.name` / `metadata.namespace` as fields. */
export function defaultAttributes(object: KubeObject): ObjectAttributes {
  const fields: Record<string, string> = { 'metadata.name': object.metadata.name ?? '' };
  if (object.metadata.namespace !== undefined) fields['metadata.namespace'] = object.metadata.namespace;
  return { labels: object.metadata.labels ?? {}, fields };
}

/** True when the predicate selects the object (no selectors select everything). */
export function predicateMatches(predicate: SelectionPredicate | undefined, object: KubeObject): boolean {
  if (!predicate) return true;
  const { label, field } = predicate;
  const labelEmpty = !label || label.empty();
  const fieldEmpty = !field || field.empty();
  if (labelEmpty && fieldEmpty) return true;
  const attributes = (predicate.getAttributes ?? defaultAttributes)(object);
  return (labelEmpty || label.matches(attributes.labels)) && (fieldEmpty || field.matches(attributes.fields));
}

/** True when the predicate has a label or field requirement. */
export function predicateHasSelectors(predicate: SelectionPredicate | undefined): boolean {
  return Boolean(predicate && ((predicate.label && !predicate.label.empty()) || (predicate.field && !predicate.field.empty())));
}
