import type { KubeObject, OwnerReference } from '@kapi/apimachinery';
import type { AbsentOwnerCache } from './absent-owner-cache.js';
import {
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  isDeletingDependents,
  isOrphaning,
  type GraphNode,
  type ObjectIdentity,
  type OwnerGraph,
} from './owner-graph.js';

/** A DELETE's propagation policy. */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/** An object to read: by apiVersion, kind, namespace ('' when cluster-scoped) and name. */
export type ObjectReference = Pick<ObjectIdentity, 'apiVersion' | 'kind' | 'namespace' | 'name'>;

/** What the garbage collector does through the API (the loopback client in the server, a fake in tests). */
export interface ObjectApi {
  /** Whether `apiVersion`/`kind` is a served resource, and its scope; undefined when it is not served. */
  mapping(apiVersion: string, kind: string): { namespaced: boolean } | undefined;
  /** A live read; undefined when the object does not exist. */
  get(reference: ObjectReference): Promise<KubeObject | undefined>;
  /** A JSON merge patch (conflicts are errors: the patch carries the uid and resourceVersion it expects). */
  patch(identity: ObjectIdentity, patch: Record<string, unknown>): Promise<void>;
  /** Deletes with the policy, preconditioned on the identity's uid (a missing object is no error). */
  delete(identity: ObjectIdentity, policy: PropagationPolicy): Promise<void>;
}

/** What {@link attemptToDelete} works with. */
export interface GarbageCollectorContext {
  graph: OwnerGraph;
  api: ObjectApi;
  /** Queues a uid for another look. */
  enqueue(uid: string): void;
  /** Whether every watched resource has been listed (the graph knows every dependent). */
  synced(): boolean;
  log(message: string): void;
  /** Counts an action (for a metric). */
  count?(action: 'deleted' | 'ownerReferencesRemoved' | 'finalizerRemoved'): void;
  /** Owners already found gone: a dependent naming one is not read live again (upstream's `absentOwnerCache`). */
  absentOwners?: AbsentOwnerCache;
}

/** An ownerReference to a kind that is not served: the dependent is left alone (retried later). */
export class UnknownOwnerKindError extends Error {
  constructor(readonly reference: OwnerReference) {
    super(`unable to get REST mapping for ${reference.apiVersion}/${reference.kind}`);
  }
}

/** The graph is not complete yet: process again later. */
export class NotSyncedError extends Error {
  constructor() {
    super('waiting for the garbage collector to list every resource');
  }
}

const describe = (identity: ObjectIdentity): string =>
  `${identity.kind} ${identity.namespace ? `${identity.namespace}/` : ''}${identity.name} (uid ${identity.uid})`;

/**
 * Processes one uid as upstream's `attemptToDeleteItem`, `processDeletingDependentsItem` and
 * `orphanDependents`: an owner being deleted in the foreground or orphaning is finished; a dependent
 * whose owners are gone is deleted, or loses its dangling references when some owner remains.
 */
export async function attemptToDelete(context: GarbageCollectorContext, uid: string): Promise<void> {
  const node = context.graph.node(uid);
  if (!node) return;
  if (isOrphaning(node)) return orphanDependents(context, node);
  if (isDeletingDependents(node)) return processDeletingDependents(context, node);
  if (node.beingDeleted || node.owners.length === 0) return;
  const latest = await context.api.get(node.identity);
  if (!latest || latest.metadata.uid !== uid) return;
  if (latest.metadata.deletionTimestamp) return;
  const owners = latest.metadata.ownerReferences ?? [];
  if (owners.length === 0) return;
  const { solid, dangling, waiting } = await classifyReferences(context, node, owners);
  if (solid.length > 0) {
    if (dangling.length === 0 && waiting.length === 0) return;
    const remove = new Set([...dangling, ...waiting].map((owner) => owner.uid));
    context.log(`garbage collector: removing dangling ownerReferences ${[...remove].join(', ')} from ${describe(node.identity)}`);
    await context.api.patch(node.identity, ownerReferencesPatch(latest, owners.filter((owner) => !remove.has(owner.uid))));
    context.count?.('ownerReferencesRemoved');
    return;
  }
  let policy: PropagationPolicy;
  if (waiting.length > 0 && context.graph.dependents(uid).length > 0) {
    policy = 'Foreground';
    // A dependent of this object is itself waiting on its dependents: this object may be one of them (a
    // cycle of blockOwnerDeletion references would wait forever). As upstream, this object's references
    // stop blocking before it is deleted in the foreground.
    if (context.graph.dependents(uid).some(isDeletingDependents) && owners.some((owner) => owner.blockOwnerDeletion === true)) {
      context.log(`garbage collector: ${describe(node.identity)} and one of its dependents wait on their dependents; its ownerReferences stop blocking, to prevent a cycle`);
      await context.api.patch(node.identity, ownerReferencesPatch(latest, owners.map((owner) => (owner.blockOwnerDeletion === true ? { ...owner, blockOwnerDeletion: false } : owner))));
    }
  } else if (latest.metadata.finalizers?.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
  else if (latest.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
  else policy = 'Background';
  context.log(`garbage collector: deleting ${describe(node.identity)} (owners gone or being deleted; propagationPolicy ${policy})`);
  await context.api.delete(node.identity, policy);
  context.count?.('deleted');
}

/**
 * Upstream's `classifyReferences`: each owner is read live (in the dependent's namespace when it is
 * namespaced), unless already known gone: absent or of another uid is dangling, being deleted in the
 * foreground is waiting, else solid.
 */
async function classifyReferences(
  context: GarbageCollectorContext,
  node: GraphNode,
  owners: readonly OwnerReference[],
): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
  const solid: OwnerReference[] = [];
  const dangling: OwnerReference[] = [];
  const waiting: OwnerReference[] = [];
  for (const owner of owners) {
    const mapping = context.api.mapping(owner.apiVersion, owner.kind);
    if (!mapping) throw new UnknownOwnerKindError(owner);
    if (mapping.namespaced && !node.identity.namespace) {
      // A cluster-scoped dependent cannot have a namespaced owner: the reference is unresolvable (kept).
      context.log(`garbage collector: ${describe(node.identity)} names a namespaced owner ${owner.kind} ${owner.name}; left alone`);
      solid.push(owner);
      continue;
    }
    const namespace = mapping.namespaced ? node.identity.namespace : '';
    if (context.absentOwners?.has(owner.uid, namespace)) {
      dangling.push(owner);
      continue;
    }
    const found = await context.api.get({ apiVersion: owner.apiVersion, kind: owner.kind, namespace, name: owner.name });
    if (!found || found.metadata.uid !== owner.uid) {
      context.absentOwners?.add(owner.uid, namespace);
      dangling.push(owner);
    } else if (found.metadata.deletionTimestamp && found.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) waiting.push(owner);
    else solid.push(owner);
  }
  return { solid, dangling, waiting };
}

/**
 * Upstream's `processDeletingDependentsItem`: while dependents block the owner's deletion
 * (`blockOwnerDeletion`), each is looked at (and deleted); once none is left the owner loses its
 * `foregroundDeletion` finalizer, and the apiserver removes it.
 */
async function processDeletingDependents(context: GarbageCollectorContext, node: GraphNode): Promise<void> {
  if (!context.synced()) throw new NotSyncedError();
  const uid = node.identity.uid;
  const blocking = context.graph
    .dependents(uid)
    .filter((dependent) => dependent.owners.some((owner) => owner.uid === uid && owner.blockOwnerDeletion === true));
  if (blocking.length > 0) {
    for (const dependent of blocking) if (!isDeletingDependents(dependent)) context.enqueue(dependent.identity.uid);
    return;
  }
  await removeFinalizer(context, node, FOREGROUND_FINALIZER);
}

/** Upstream's `orphanDependents`: every dependent loses its references to the owner, then the owner its `orphan` finalizer. */
async function orphanDependents(context: GarbageCollectorContext, node: GraphNode): Promise<void> {
  if (!context.synced()) throw new NotSyncedError();
  const uid = node.identity.uid;
  for (const dependent of context.graph.dependents(uid)) {
    const latest = await context.api.get(dependent.identity);
    if (!latest || latest.metadata.uid !== dependent.identity.uid) continue;
    const owners = latest.metadata.ownerReferences ?? [];
    if (!owners.some((owner) => owner.uid === uid)) continue;
    context.log(`garbage collector: orphaning ${describe(dependent.identity)} (owner ${describe(node.identity)})`);
    await context.api.patch(dependent.identity, ownerReferencesPatch(latest, owners.filter((owner) => owner.uid !== uid)));
    context.count?.('ownerReferencesRemoved');
  }
  await removeFinalizer(context, node, ORPHAN_FINALIZER);
}

async function removeFinalizer(context: GarbageCollectorContext, node: GraphNode, finalizer: string): Promise<void> {
  const latest = await context.api.get(node.identity);
  if (!latest || latest.metadata.uid !== node.identity.uid) return;
  const finalizers = latest.metadata.finalizers ?? [];
  if (!finalizers.includes(finalizer)) return;
  context.log(`garbage collector: removing the ${finalizer} finalizer of ${describe(node.identity)}`);
  await context.api.patch(node.identity, {
    metadata: { uid: latest.metadata.uid, resourceVersion: latest.metadata.resourceVersion, finalizers: finalizers.filter((f) => f !== finalizer) },
  });
  context.count?.('finalizerRemoved');
}

/** A merge patch setting the ownerReferences, guarded by uid and resourceVersion (upstream's GenerateDeleteOwnerRefJSONMergePatch). */
function ownerReferencesPatch(latest: KubeObject, owners: OwnerReference[]): Record<string, unknown> {
  return {
    metadata: {
      uid: latest.metadata.uid,
      resourceVersion: latest.metadata.resourceVersion,
      ownerReferences: owners.length > 0 ? owners : null,
    },
  };
}
