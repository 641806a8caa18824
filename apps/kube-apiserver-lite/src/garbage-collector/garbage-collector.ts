import { StatusError, groupVersionString, parseGroupVersion, type KubeObject } from '@kapi/apimachinery';
import { Informer, ResourceClient, type ResourceClientOptions, type RestClient } from '@kapi/client';
import type { ResourceDefinition } from '@kapi/server';
import type { Interface } from '@kapi/storage';
import { Counter, Gauge, type Registry } from 'prom-client';
import {
  NotSyncedError,
  UnknownOwnerKindError,
  attemptToDelete,
  type GarbageCollectorContext,
  type ObjectApi,
  type ObjectReference,
  type PropagationPolicy,
} from './attempt-to-delete.js';
import { OwnerGraph, type ObjectIdentity } from './owner-graph.js';
import { AbsentOwnerCache } from './absent-owner-cache.js';
import { StorageInformer } from './storage-informer.js';
import { WorkQueue } from './work-queue.js';

/** Options of a {@link GarbageCollector}. */
export interface GarbageCollectorOptions {
  /** The loopback client. */
  rest: RestClient;
  /** The resources served now (built-ins and the custom resources of established CRDs). */
  resources: () => readonly ResourceDefinition[];
  log?: (message: string) => void;
  /** How often the served resources are compared with the watched ones. Default 1000 ms. */
  resourceSyncPeriodMs?: number;
  /** Delay before a dependent whose owner kind is not served is looked at again. Default 30 s. */
  unknownKindRetryMs?: number;
  /** Registers `garbage_collector_*` metrics there. */
  metricsRegistry?: Registry;
  /**
   * The storage of a served resource in this process (`GenericAPIServer.resourceStorage`): its objects are
   * then read from the watch cache directly, not watched over loopback HTTP. Resources it gives none for
   * are watched over `rest`, metadata only.
   */
  storageOf?: (definition: ResourceDefinition) => { storage: Interface; prefix: string } | undefined;
}

/** A source of a resource's objects: an informer over loopback, or one on the storage. */
interface ObjectSource {
  hasSynced(): boolean;
  stop(): Promise<void>;
}

interface Watched {
  /** What the informer was started for (a change of version, kind or scope restarts it). */
  signature: string;
  informer: ObjectSource;
}

const resourceKeyOf = (definition: ResourceDefinition): string => `${definition.group}/${definition.resource}`;
const signatureOf = (definition: ResourceDefinition): string =>
  `${definition.versions[0] ?? ''}/${definition.kind}/${String(definition.namespaced)}`;

/** Upstream's default ignored resources of the garbage collector: events, of both APIs (never owners, and numerous). */
const ignoredResources = new Set(['/events', 'events.k8s.io/events']);

/** Whether the garbage collector can watch and delete the resource (list, watch and delete are served). */
function collectable(definition: ResourceDefinition): boolean {
  const verbs = definition.verbs;
  if (definition.virtual || ignoredResources.has(resourceKeyOf(definition))) return false;
  return !verbs || (verbs.includes('list') && verbs.includes('watch') && verbs.includes('delete'));
}

interface CollectorMetrics {
  actions: Counter<'action'>;
  /** The graph of the collector running now, read by `garbage_collector_graph_objects`. */
  graph: OwnerGraph | undefined;
}

const metricsByRegistry = new WeakMap<Registry, CollectorMetrics>();

/** The `garbage_collector_*` metrics of `registry`, registered on first use. */
function collectorMetrics(registry: Registry): CollectorMetrics {
  let metrics = metricsByRegistry.get(registry);
  if (metrics) return metrics;
  const created: CollectorMetrics = {
    actions: new Counter({
      name: 'garbage_collector_actions_total',
      help: 'Writes of the garbage collector by action (deleted, ownerReferencesRemoved, finalizerRemoved).',
      labelNames: ['action'],
      registers: [registry],
    }),
    graph: undefined,
  };
  new Gauge({
    name: 'garbage_collector_graph_objects',
    help: 'Objects in the garbage collector graph.',
    registers: [registry],
    collect() {
      this.set(created.graph?.size ?? 0);
    },
  });
  metrics = created;
  metricsByRegistry.set(registry, metrics);
  return metrics;
}

/**
 * The garbage collector (upstream's kube-controller-manager `garbagecollector`), in process: an informer
 * per served resource that supports list, watch and delete (custom resources as CRDs come and go) feeds
 * an {@link OwnerGraph}; a work queue runs {@link attemptToDelete} on what changed. Dependents whose owners
 * are gone are deleted, foreground deletions wait on their blocking dependents, orphaning strips the
 * references. The graph is rebuilt from lists at start; every action is idempotent and guarded by uid and
 * resourceVersion, so concurrent collectors (HA replicas) only cause conflicts, which are retried.
 */
export class GarbageCollector {
  readonly graph = new OwnerGraph();
  private readonly watched = new Map<string, Watched>();
  private readonly queue: WorkQueue;
  private readonly log: (message: string) => void;
  private readonly context: GarbageCollectorContext;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly reportedUnknown = new Set<string>();
  private readonly metrics: CollectorMetrics | undefined;
  /** Owners found gone by a live read or seen deleted. */
  private readonly absentOwners = new AbsentOwnerCache();

  constructor(private readonly options: GarbageCollectorOptions) {
    this.log = options.log ?? (() => undefined);
    this.queue = new WorkQueue((uid) => this.process(uid));
    if (options.metricsRegistry) {
      // Registered once per registry: a collector started again (a new leader term) reuses them.
      this.metrics = collectorMetrics(options.metricsRegistry);
      this.metrics.graph = this.graph;
    }
    this.context = {
      graph: this.graph,
      api: this.objectApi(),
      enqueue: (uid) => this.queue.add(uid),
      synced: () => this.synced(),
      log: this.log,
      count: (action) => this.metrics?.actions.inc({ action }),
      absentOwners: this.absentOwners,
    };
  }

  /** Starts watching the served resources. */
  start(): void {
    this.syncResources();
    this.timer = setInterval(() => this.syncResources(), this.options.resourceSyncPeriodMs ?? 1000);
    this.timer.unref();
  }

  /** Stops every informer and the queue. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.queue.stop();
    await Promise.all([...this.watched.values()].map((entry) => entry.informer.stop()));
    this.watched.clear();
    // A stopped collector (a lost lease) reports an empty graph, not its last one.
    if (this.metrics?.graph === this.graph) this.metrics.graph = undefined;
  }

  /** Whether every watched resource has been listed. */
  synced(): boolean {
    return [...this.watched.values()].every((entry) => entry.informer.hasSynced());
  }

  /** Starts informers for new resources and stops those of resources no longer served. */
  private syncResources(): void {
    if (this.stopped) return;
    const served = new Map<string, ResourceDefinition>();
    for (const definition of this.options.resources()) if (collectable(definition)) served.set(resourceKeyOf(definition), definition);
    let changed = false;
    for (const [key, entry] of [...this.watched]) {
      const definition = served.get(key);
      if (definition && signatureOf(definition) === entry.signature) continue;
      this.watched.delete(key);
      void entry.informer.stop();
      for (const uid of this.graph.removeResource(key)) this.queue.add(uid);
      changed = true;
    }
    for (const [key, definition] of served) {
      if (this.watched.has(key)) continue;
      this.watched.set(key, { signature: signatureOf(definition), informer: this.watch(definition) });
      changed = true;
    }
    if (changed) {
      // An owner kind may have become served (or gone): dependents are looked at again.
      this.reportedUnknown.clear();
      for (const node of this.graph.withOwners()) this.queue.add(node.identity.uid);
    }
  }

  private watch(definition: ResourceDefinition): ObjectSource {
    const version = definition.versions[0] ?? 'v1';
    const identity = (object: KubeObject): Omit<ObjectIdentity, 'uid'> => ({
      resourceKey: resourceKeyOf(definition),
      apiVersion: groupVersionString({ group: definition.group, version }),
      kind: definition.kind,
      namespace: object.metadata.namespace ?? '',
      name: object.metadata.name ?? '',
    });
    // Metadata only, as upstream's metadata informers: names, owners and finalizers are all the graph needs.
    const resourceKey = resourceKeyOf(definition);
    const storage = this.options.storageOf?.(definition);
    if (storage) {
      const informer = new StorageInformer(storage, {
        onUpsert: (object) => this.enqueueAll(this.graph.upsert(identity(object), object)),
        onDelete: (object) => this.deleted(object),
        onRelist: (uids) => this.enqueueAll(this.graph.removeMissing(resourceKey, uids)),
        onError: (error) => this.log(`garbage collector: watching ${resourceKey}: ${String(error)}`),
      });
      informer.start();
      return informer;
    }
    const informer = new Informer(this.client(definition, version, { metadataOnly: true }));
    informer.addEventHandler({
      onAdd: (object) => this.enqueueAll(this.graph.upsert(identity(object), object)),
      onUpdate: (old, object) => {
        if (old.metadata.uid && old.metadata.uid !== object.metadata.uid) this.enqueueAll(this.graph.remove(old.metadata.uid));
        this.enqueueAll(this.graph.upsert(identity(object), object));
      },
      onDelete: (object) => this.deleted(object),
    });
    informer.start();
    return informer;
  }

  /** An object was deleted: it is gone as an owner too, and its dependents are looked at again. */
  private deleted(object: KubeObject): void {
    const uid = object.metadata.uid ?? '';
    if (uid) this.absentOwners.add(uid, object.metadata.namespace ?? '');
    this.enqueueAll(this.graph.remove(uid));
  }

  private enqueueAll(uids: readonly string[]): void {
    for (const uid of uids) this.queue.add(uid);
  }

  private async process(uid: string): Promise<void> {
    try {
      await attemptToDelete(this.context, uid);
      this.queue.forget(uid);
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof UnknownOwnerKindError) {
        // As upstream: such dependents stay, and are looked at again later (the kind may become served).
        const key = `${uid}/${error.reference.apiVersion}/${error.reference.kind}`;
        if (!this.reportedUnknown.has(key)) {
          this.reportedUnknown.add(key);
          this.log(`garbage collector: object ${uid} has an ownerReference to ${error.reference.kind} ${error.reference.name} (${error.reference.apiVersion}), which is not served; left alone`);
        }
        this.queue.retry(uid, this.options.unknownKindRetryMs ?? 30_000);
        return;
      }
      if (!(error instanceof NotSyncedError) && !(StatusError.isInstance(error) && error.code === 409)) {
        this.log(`garbage collector: processing ${uid} failed, will retry: ${String(error)}`);
      }
      this.queue.retry(uid);
    }
  }

  private client(definition: ResourceDefinition, version: string, options: ResourceClientOptions = {}): ResourceClient {
    return new ResourceClient(this.options.rest, { group: definition.group, version, resource: definition.resource, namespaced: definition.namespaced }, options);
  }

  /** The served resource of `apiVersion`/`kind` (that version must be served). */
  private definitionOf(apiVersion: string, kind: string): ResourceDefinition | undefined {
    const { group, version } = parseGroupVersion(apiVersion);
    for (const definition of this.options.resources()) {
      if (definition.group === group && definition.kind === kind && definition.versions.includes(version) && collectable(definition)) return definition;
    }
    return undefined;
  }

  private objectApi(): ObjectApi {
    const clientOf = (reference: ObjectReference): ResourceClient => {
      const definition = this.definitionOf(reference.apiVersion, reference.kind);
      if (!definition) throw new Error(`${reference.apiVersion}/${reference.kind} is not served`);
      return this.client(definition, parseGroupVersion(reference.apiVersion).version);
    };
    const namespaceOf = (reference: ObjectReference) => reference.namespace || undefined;
    const ignoreNotFound = (error: unknown): undefined => {
      if (StatusError.isInstance(error) && error.code === 404) return undefined;
      throw error;
    };
    return {
      mapping: (apiVersion, kind) => {
        const definition = this.definitionOf(apiVersion, kind);
        return definition ? { namespaced: definition.namespaced } : undefined;
      },
      get: (reference) => clientOf(reference).get(namespaceOf(reference), reference.name).catch(ignoreNotFound),
      patch: async (identity, patch) => {
        await clientOf(identity).patch(namespaceOf(identity), identity.name, patch, 'application/merge-patch+json').catch(ignoreNotFound);
      },
      delete: async (identity, policy: PropagationPolicy) => {
        await clientOf(identity)
          .delete(namespaceOf(identity), identity.name, { preconditions: { uid: identity.uid }, propagationPolicy: policy })
          .catch((error: unknown) => {
            // A precondition failure: the object was replaced by another of the same name (not ours to delete).
            if (StatusError.isInstance(error) && error.code === 409 && /Precondition failed: UID/.test(error.message)) return undefined;
            return ignoreNotFound(error);
          });
      },
    };
  }
}
