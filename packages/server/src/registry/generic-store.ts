import {
  StatusError,
  generateName,
  groupVersionString,
  type GroupResource,
  type KubeObject,
} from '@kapi/apimachinery';
import {
  StorageError,
  defaultAttributes,
  storageErrorToStatus,
  type Interface,
  type Preconditions,
  type Watch,
} from '@kapi/storage';
import type { ResourceDefinition } from '../resource-definition.js';
import type { SchemeLike } from '../scheme-like.js';
import type { FieldManager } from '../apply/field-manager.js';
import { copyObject, formatTime } from './object-meta.js';
import { deletionFinalizersForGarbageCollection, setFinalizers, type DeletePropagationOptions } from './deletion-finalizers.js';
import { checkPreconditions } from './preconditions.js';
import type { DeleteResult, GenericStoreOptions, ListParameters, UpdateInput, UpdateOptions, WriteContext } from './generic-store-types.js';
import { listKey, objectKey } from './storage-keys.js';
import { WritePreparation } from './write-preparation.js';
import { convertOne, convertingWatch } from './async-converter.js';

/** How many times a generateName create retries on AlreadyExists. */
const GENERATE_NAME_ATTEMPTS = 5;

export type { DeleteResult, GenericStoreOptions, ListParameters, UpdateInput, UpdateOptions, WriteContext } from './generic-store-types.js';

/**
 * Serves one ResourceDefinition over a storage Interface (k8s.io/apiserver registry/generic/registry.Store).
 * Objects are stored in the hub version; methods take and return objects in the caller's version.
 */
export class GenericStore {
  readonly definition: ResourceDefinition;
  readonly groupResource: GroupResource;
  readonly storage: Interface;
  readonly prefix: string;
  private readonly scheme: SchemeLike;
  private readonly now: () => Date;
  private readonly preparation: WritePreparation;
  /** The apiVersion of each version the resource is served at (`<group>/<version>`, or `v1` for core). */
  private readonly apiVersions: ReadonlyMap<string, string>;

  constructor(options: GenericStoreOptions) {
    this.definition = options.definition;
    this.groupResource = { group: options.definition.group, resource: options.definition.resource };
    this.scheme = options.scheme;
    this.storage = options.storage;
    this.prefix = options.prefix;
    this.now = options.now ?? (() => new Date());
    this.preparation = new WritePreparation(this.definition, this.scheme, this.groupResource, this.now);
    const group = this.definition.group;
    this.apiVersions = new Map(this.definition.versions.map((version) => [version, groupVersionString({ group, version })]));
  }

  /** The field manager of this resource (records managedFields, performs server-side apply). */
  get fieldManager(): FieldManager {
    return this.preparation.fieldManager;
  }

  /**
   * Converts a hub object to `version` with apiVersion/kind set. An object already at `version` (the
   * usual case: every GET, LIST item and watch event served at the stored version) is returned as it is,
   * without asking the scheme.
   */
  toVersion(object: KubeObject, version: string): KubeObject {
    if (object.kind === this.definition.kind && object.apiVersion === this.apiVersions.get(version)) return object;
    return this.scheme.convert(object, { group: this.definition.group, version });
  }

  /** {@link toVersion}, through the definition's asynchronous converter when it has one. */
  private versioned(object: KubeObject, version: string): KubeObject | Promise<KubeObject> {
    const converter = this.definition.converter;
    return converter ? convertOne(converter, object, version) : this.toVersion(object, version);
  }

  /** Turns a storage failure into the API Status for this resource. */
  toStatusError(error: unknown, name?: string): unknown {
    if (StorageError.isInstance(error)) return storageErrorToStatus(error, this.groupResource, name);
    return error;
  }

  private key(namespace: string, name: string): string {
    return objectKey(this.prefix, this.definition.namespaced ? namespace : '', name);
  }

  /**
   * Reads one object. Not an async function: a GET's read costs one promise reaction here (GETs are the
   * most frequent requests).
   */
  get(namespace: string, name: string, version: string, resourceVersion?: string): Promise<KubeObject> {
    const failed = (error: unknown): never => {
      throw this.toStatusError(error, name);
    };
    let read: Promise<KubeObject | undefined>;
    try {
      read = this.storage.get(this.key(namespace, name), resourceVersion === undefined ? {} : { resourceVersion });
    } catch (error) {
      return Promise.reject(this.toStatusError(error, name));
    }
    return read.then((object) => {
      try {
        if (!object) throw StatusError.notFound(this.groupResource, name);
        // Not awaited: built-ins stay synchronous here; a converter's errors are already Statuses.
        return this.versioned(object, version);
      } catch (error) {
        return failed(error);
      }
    }, failed);
  }

  /** Lists objects as a `<Kind>List` in `version`. */
  async list(namespace: string, version: string, parameters: ListParameters): Promise<KubeObject> {
    try {
      const result = await this.storage.getList(
        listKey(this.prefix, this.definition.namespaced ? namespace : ''),
        {
          ...(parameters.resourceVersion !== undefined
            ? { resourceVersion: parameters.resourceVersion }
            : {}),
          ...(parameters.resourceVersionMatch
            ? { resourceVersionMatch: parameters.resourceVersionMatch }
            : {}),
          predicate: this.predicate(parameters),
          recursive: true,
        },
      );
      const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
      if (result.continue) metadata['continue'] = result.continue;
      if (result.remainingItemCount !== undefined) metadata['remainingItemCount'] = result.remainingItemCount;
      return {
        apiVersion: groupVersionString({ group: this.definition.group, version }),
        kind: this.definition.listKind ?? `${this.definition.kind}List`,
        metadata,
        items: this.definition.converter
          ? await this.definition.converter.convert(result.items, version)
          : result.items.map((item) => this.toVersion(item, version)),
      };
    } catch (error) {
      throw this.toStatusError(error);
    }
  }

  private predicate(parameters: ListParameters) {
    return {
      ...(parameters.labelSelector ? { label: parameters.labelSelector } : {}),
      ...(parameters.fieldSelector ? { field: parameters.fieldSelector } : {}),
      ...(parameters.limit ? { limit: parameters.limit } : {}),
      ...(parameters.continue ? { continue: parameters.continue } : {}),
      getAttributes: this.definition.strategy?.getAttributes ?? defaultAttributes,
    };
  }

  /**
   * Starts a storage watch over the namespace, or everything: hub objects, or objects converted to
   * `version` when the definition converts asynchronously.
   */
  async watch(
    namespace: string,
    parameters: ListParameters & {
      version?: string;
      allowWatchBookmarks?: boolean;
      sendInitialEvents?: boolean;
      signal?: AbortSignal;
      deadline?: number;
    },
  ): Promise<Watch> {
    try {
      const watch = await this.storage.watch(listKey(this.prefix, this.definition.namespaced ? namespace : ''), {
        ...(parameters.resourceVersion !== undefined ? { resourceVersion: parameters.resourceVersion } : {}),
        ...(parameters.resourceVersionMatch ? { resourceVersionMatch: parameters.resourceVersionMatch } : {}),
        ...(parameters.sendInitialEvents !== undefined
          ? { sendInitialEvents: parameters.sendInitialEvents }
          : {}),
        ...(parameters.signal ? { signal: parameters.signal } : {}),
        ...(parameters.deadline !== undefined ? { deadline: parameters.deadline } : {}),
        predicate: {
          ...this.predicate(parameters),
          ...(parameters.allowWatchBookmarks ? { allowWatchBookmarks: true } : {}),
        },
        progressNotify: Boolean(parameters.allowWatchBookmarks),
        recursive: true,
      });
      const converter = this.definition.converter;
      return converter && parameters.version ? convertingWatch(watch, converter, parameters.version) : watch;
    } catch (error) {
      throw this.toStatusError(error);
    }
  }

  async create(
    namespace: string,
    object: KubeObject,
    version: string,
    context: WriteContext,
  ): Promise<KubeObject> {
    if (object.metadata.resourceVersion) {
      // etcd3 store's ErrResourceVersionSetOnCreate: upstream's text, answered as the client's error (400).
      throw StatusError.badRequest('resourceVersion should not be set on objects to be created');
    }
    const generate = !object.metadata.name && Boolean(object.metadata.generateName);
    const decodeAgain = context.decodeAgain;
    for (let attempt = 1; ; attempt += 1) {
      // prepareCreate works on its own copy, unless the caller handed its object over (then on the
      // object itself, and on a fresh decode of it for each later attempt). A generated name on a copy
      // only needs a new metadata level.
      let candidate = object;
      if (decodeAgain) {
        if (attempt > 1) candidate = await decodeAgain();
        if (generate) candidate.metadata.name = generateName(candidate.metadata.generateName ?? '');
      } else if (generate) {
        candidate = { ...object, metadata: { ...object.metadata, name: generateName(object.metadata.generateName ?? '') } };
      }
      const hub = await this.preparation.prepareCreate(candidate, namespace, context, decodeAgain !== undefined);
      const name = hub.metadata.name ?? '';
      const key = this.key(namespace, name);
      try {
        if (context.dryRun) {
          const existing = await this.storage.get(key, { ignoreNotFound: true });
          if (existing) throw StatusError.alreadyExists(this.groupResource, name);
          return this.versioned(hub, version);
        }
        // The hub is this call's own (prepareCreate's): the store may return it rather than a copy.
        const created = await this.storage.create(key, hub, { handOver: true, shareResult: context.readOnlyResult === true });
        return this.versioned(created, version);
      } catch (error) {
        if (!context.dryRun) await this.abandon('create', hub, undefined, namespace, name, context);
        if (
          generate &&
          StorageError.isInstance(error) &&
          error.code === 'KeyExists' &&
          attempt < GENERATE_NAME_ATTEMPTS
        )
          continue;
        throw this.toStatusError(error, name);
      }
    }
  }

  /**
   * Updates (PUT, or PATCH when `input` is a function) one object. Returns the stored result in
   * `version` and whether it was created (allowCreateOnUpdate).
   */
  async update(
    namespace: string,
    name: string,
    input: UpdateInput,
    version: string,
    context: WriteContext,
    options: UpdateOptions = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(namespace, name);
    const strategy = this.definition.strategy;
    // As upstream's status REST: a subresource never creates its object (an apply to /status of a missing one is 404).
    const allowCreate =
      context.subresource === '' &&
      (typeof input === 'function' ? Boolean(options.allowCreate) : Boolean(strategy?.allowCreateOnUpdate));
    let created = false;
    const preconditions: Preconditions = {};
    if (typeof input !== 'function' && input.metadata.uid) preconditions.uid = input.metadata.uid;
    // What each attempt's admission passed (an update that conflicts is tried again on the new object):
    // all but the stored one are abandoned.
    const admitted: Array<{ operation: 'create' | 'update'; object: KubeObject; old: KubeObject | undefined }> = [];
    const tryUpdate = async (current: KubeObject, exists: boolean): Promise<KubeObject> => {
      const prepared = await prepare(current, exists);
      admitted.push({ operation: exists ? 'update' : 'create', object: prepared, old: exists ? current : undefined });
      return prepared;
    };
    const abandon = async (attempts: typeof admitted) => {
      for (const attempt of attempts)
        await this.abandon(attempt.operation, attempt.object, attempt.old, namespace, name, context);
    };
    const prepare = async (current: KubeObject, exists: boolean): Promise<KubeObject> => {
      if (!exists) {
        if (!allowCreate) throw StatusError.notFound(this.groupResource, name);
        created = true;
        if (typeof input !== 'function') return this.preparation.prepareCreate(input, namespace, context);
        const empty: KubeObject = {
          apiVersion: groupVersionString({ group: this.definition.group, version }),
          kind: this.definition.kind,
          metadata: {},
        };
        return this.preparation.prepareCreate(await input(empty, false), namespace, context);
      }
      created = false;
      const currentVersioned = await this.versioned(current, version);
      const requested =
        typeof input === 'function' ? await input(copyObject(currentVersioned), true) : copyObject(input);
      return this.preparation.prepareUpdate(requested, current, {
        namespace,
        name,
        context,
        isPatch: typeof input === 'function',
        currentVersioned,
      });
    };
    try {
      if (context.dryRun) {
        const current = await this.storage.get(key, { ignoreNotFound: true });
        if (current) checkPreconditions(key, current, preconditions);
        const result = await tryUpdate(current ?? { metadata: {} }, current !== undefined);
        if (current?.metadata.resourceVersion)
          result.metadata.resourceVersion = current.metadata.resourceVersion;
        return { object: await this.versioned(result, version), created };
      }
      let stored: KubeObject;
      try {
        stored = await this.storage.guaranteedUpdate(key, {
          ignoreNotFound: allowCreate,
          ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
          tryUpdate: (current, meta) => tryUpdate(current, meta.resourceVersion !== 0),
        });
      } catch (error) {
        await abandon(admitted);
        throw error;
      }
      // The last attempt is the one stored.
      await abandon(admitted.slice(0, -1));
      if (stored.metadata.deletionTimestamp && !this.hasPendingFinalizers(stored)) {
        const deleted = await this.storage.delete(key, {
          preconditions: { resourceVersion: stored.metadata.resourceVersion ?? '' },
        });
        return { object: await this.versioned(deleted, version), created: false };
      }
      return { object: await this.versioned(stored, version), created };
    } catch (error) {
      throw this.toStatusError(error, name);
    }
  }

  /** The strategy's `abandon` of a write its admission passed but storage did not take; its errors are ignored. */
  private async abandon(
    operation: 'create' | 'update',
    object: KubeObject,
    old: KubeObject | undefined,
    namespace: string,
    name: string,
    context: WriteContext,
  ): Promise<void> {
    const abandon = this.definition.strategy?.abandon;
    if (!abandon) return;
    try {
      await abandon(operation, object, old, this.preparation.scope(namespace, name, context));
    } catch {
      // Best effort, as upstream's transaction revert: what is not given back is the repair's.
    }
  }

  /**
   * Deletes one object. An object with finalizers only gets `deletionTimestamp` (and grace period 0)
   * and stays until an update empties its finalizers. As upstream's store, the propagation policy first
   * sets the garbage collector's finalizers (`foregroundDeletion` for Foreground, `orphan` for Orphan),
   * also on an object already being deleted; Background (or none) deletes at once.
   */
  async delete(
    namespace: string,
    name: string,
    version: string,
    preconditions: Preconditions,
    context: WriteContext,
    propagation: DeletePropagationOptions = {},
  ): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    try {
      const current = await this.storage.get(key);
      if (!current) throw StatusError.notFound(this.groupResource, name);
      checkPreconditions(key, current, preconditions);
      const scope = this.preparation.scope(namespace, name, context, version);
      await this.definition.strategy?.admit?.('delete', current, current, scope);
      const prepareForDelete = this.definition.strategy?.prepareForDelete;
      const firstDelete = !current.metadata.deletionTimestamp;
      const finalizers = deletionFinalizersForGarbageCollection(current.metadata.finalizers ?? [], propagation);
      const effective = (firstDelete && prepareForDelete) || finalizers.changed ? copyObject(current) : current;
      if (effective !== current) {
        if (firstDelete) prepareForDelete?.(effective);
        if (finalizers.changed) setFinalizers(effective, finalizers.finalizers);
      }
      if (this.hasPendingFinalizers(effective)) {
        if ((current.metadata.deletionTimestamp && !finalizers.changed) || context.dryRun) {
          const marked = copyObject(effective);
          marked.metadata.deletionTimestamp ??= formatTime(this.now());
          marked.metadata.deletionGracePeriodSeconds ??= 0;
          return { object: await this.versioned(marked, version), deleted: false };
        }
        const marked = await this.markDeleting(key, preconditions, propagation);
        if (marked) return { object: await this.versioned(marked, version), deleted: false };
      }
      if (context.dryRun) return { object: await this.versioned(current, version), deleted: true };
      const deleted = await this.storage.delete(key, {
        ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
        ...(effective === current ? { cachedExistingObject: current } : {}),
      });
      return { object: await this.versioned(deleted, version), deleted: true };
    } catch (error) {
      throw this.toStatusError(error, name);
    }
  }

  /**
   * Upstream's `updateForGracefulDeletionAndFinalizers`: on the latest object, sets the GC finalizers of
   * the policy and `deletionTimestamp`. Returns undefined (nothing written) when no finalizer is left to
   * wait on, in which case the object is to be deleted now.
   */
  private async markDeleting(
    key: string,
    preconditions: Preconditions,
    propagation: DeletePropagationOptions,
  ): Promise<KubeObject | undefined> {
    const prepareForDelete = this.definition.strategy?.prepareForDelete;
    let deleteNow = false;
    const marked = await this.storage.guaranteedUpdate(key, {
      ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
      tryUpdate: (latest) => {
        const next = copyObject(latest);
        if (!latest.metadata.deletionTimestamp) prepareForDelete?.(next);
        const finalizers = deletionFinalizersForGarbageCollection(latest.metadata.finalizers ?? [], propagation);
        if (finalizers.changed) setFinalizers(next, finalizers.finalizers);
        deleteNow = !this.hasPendingFinalizers(next);
        if (deleteNow) return latest;
        if (!latest.metadata.deletionTimestamp) next.metadata.deletionGracePeriodSeconds = 0;
        next.metadata.deletionTimestamp ??= formatTime(this.now());
        return next;
      },
    });
    return deleteNow ? undefined : marked;
  }

  /** Whether `object` waits on finalizers: its metadata's, or those the strategy knows of. */
  private hasPendingFinalizers(object: KubeObject): boolean {
    return (object.metadata.finalizers ?? []).length > 0 || Boolean(this.definition.strategy?.hasPendingFinalizers?.(object));
  }

  /**
   * Deletes every selected object (or, with `limit`, one page of them); returns the list of what was deleted
   * (or marked), with the page's continue token.
   */
  async deleteCollection(
    namespace: string,
    version: string,
    parameters: ListParameters,
    context: WriteContext,
    propagation: DeletePropagationOptions = {},
  ): Promise<KubeObject> {
    // With a limit, one page is deleted and the answer carries its continue token, as upstream's store.
    const list = await this.list(namespace, version, parameters);
    const items = (list['items'] as KubeObject[]) ?? [];
    const results: KubeObject[] = [];
    for (const item of items) {
      try {
        const result = await this.delete(
          item.metadata.namespace ?? '',
          item.metadata.name ?? '',
          version,
          {},
          context,
          propagation,
        );
        results.push(result.object);
      } catch (error) {
        if (StatusError.isInstance(error) && error.code === 404) continue;
        throw error;
      }
    }
    return { ...list, items: results };
  }
}
