import type { KubeObject, OwnerReference } from '@kapi/apimachinery';

/** The finalizer with which a DELETE asks the garbage collector to orphan the dependents (metav1.FinalizerOrphanDependents). */
export const ORPHAN_FINALIZER = 'orphan';

/** The finalizer with which a DELETE asks the garbage collector to delete the dependents first (metav1.FinalizerDeleteDependents). */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** Where an object lives: enough to read, patch or delete it through the API. */
export interface ObjectIdentity {
  uid: string;
  /** `group/resource` of the served resource the object was seen in. */
  resourceKey: string;
  apiVersion: string;
  kind: string;
  /** '' for a cluster-scoped object. */
  namespace: string;
  name: string;
}

/** One object of the graph (upstream's `node`): its identity, owners and deletion state. */
export interface GraphNode {
  identity: ObjectIdentity;
  owners: readonly OwnerReference[];
  beingDeleted: boolean;
  finalizers: readonly string[];
}

/** Whether the node waits on its dependents' deletion (deletionTimestamp and the foregroundDeletion finalizer). */
export function isDeletingDependents(node: GraphNode): boolean {
  return node.beingDeleted && node.finalizers.includes(FOREGROUND_FINALIZER);
}

/** Whether the node waits to orphan its dependents (deletionTimestamp and the orphan finalizer). */
export function isOrphaning(node: GraphNode): boolean {
  return node.beingDeleted && node.finalizers.includes(ORPHAN_FINALIZER);
}

const sameOwners = (a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean =>
  a.length === b.length && a.every((owner, index) => owner.uid === b[index]?.uid && Boolean(owner.blockOwnerDeletion) === Boolean(b[index]?.blockOwnerDeletion));

/**
 * The garbage collector's view of ownership (upstream's `uidToNode` graph): uid -> node, and owner uid ->
 * the uids of its dependents (an owner not seen, or gone, keeps its dependents listed). Every change
 * returns the uids to look at again, as upstream's GraphBuilder enqueues them for `attemptToDelete`.
 *
 * Unlike upstream's, it holds no node for an object with nothing to collect (no ownerReferences, not being
 * deleted): such an object matters only as an owner, and its dependents are found by its uid alone. Most
 * objects are of that kind, and a node for each would double what the collector keeps per object (the
 * watch caches it reads from already hold them). So a missed deletion (relist) or a resource no longer
 * served cannot tell which of those owners it concerned: the dependents of every owner without a node are
 * looked at again, and `attemptToDelete` reads their owners live.
 */
export class OwnerGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependentsByOwner = new Map<string, Set<string>>();

  /** The node of `uid`, if the object is known. */
  node(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** How many objects the graph holds a node for (those with ownerReferences or being deleted). */
  get size(): number {
    return this.nodes.size;
  }

  /** The known dependents of `uid` (objects whose ownerReferences name it). */
  dependents(uid: string): GraphNode[] {
    const result: GraphNode[] = [];
    for (const dependent of this.dependentsByOwner.get(uid) ?? []) {
      const node = this.nodes.get(dependent);
      if (node) result.push(node);
    }
    return result;
  }

  /** Every node whose ownerReferences are not empty. */
  withOwners(): GraphNode[] {
    return [...this.nodes.values()].filter((node) => node.owners.length > 0);
  }

  /** Adds or updates the object seen at `identity`; returns the uids to process. */
  upsert(identity: Omit<ObjectIdentity, 'uid'>, object: KubeObject): string[] {
    const uid = object.metadata.uid;
    if (!uid) return [];
    const previous = this.nodes.get(uid);
    const references = object.metadata.ownerReferences;
    const beingDeleted = Boolean(object.metadata.deletionTimestamp);
    // Nothing to collect, and never was: no node (see the class comment). The common case, kept cheap.
    if (!previous && !beingDeleted && (references === undefined || references.length === 0)) return [];
    const next: GraphNode = {
      // Written out (not spread) so that every identity shares one object shape.
      identity: {
        uid,
        resourceKey: identity.resourceKey,
        apiVersion: identity.apiVersion,
        kind: identity.kind,
        namespace: identity.namespace,
        name: identity.name,
      },
      owners: (references ?? []).filter((owner) => Boolean(owner.uid)),
      beingDeleted,
      finalizers: object.metadata.finalizers ?? [],
    };
    if (next.owners.length > 0 || beingDeleted) this.nodes.set(uid, next);
    else this.nodes.delete(uid);
    const enqueue = new Set<string>();
    for (const owner of previous?.owners ?? []) {
      if (next.owners.some((o) => o.uid === owner.uid)) continue;
      this.dropDependent(owner.uid, uid);
      // A removed reference may be the one a foreground owner waits on.
      enqueue.add(owner.uid);
    }
    for (const owner of next.owners) {
      let dependents = this.dependentsByOwner.get(owner.uid);
      if (!dependents) this.dependentsByOwner.set(owner.uid, (dependents = new Set()));
      dependents.add(uid);
    }
    if (next.owners.length > 0 && (!previous || !sameOwners(previous.owners, next.owners))) enqueue.add(uid);
    if (isDeletingDependents(next)) {
      enqueue.add(uid);
      // The owner starts waiting: every dependent is looked at (upstream's startsWaitingForDependentsDeleted).
      if (!previous || !isDeletingDependents(previous)) for (const dependent of this.dependents(uid)) enqueue.add(dependent.identity.uid);
    }
    if (isOrphaning(next)) enqueue.add(uid);
    return [...enqueue];
  }

  /** Removes the object `uid` (with or without a node); returns the uids to process (its dependents and owners). */
  remove(uid: string): string[] {
    const node = this.nodes.get(uid);
    this.nodes.delete(uid);
    const enqueue = new Set<string>();
    for (const owner of node?.owners ?? []) {
      this.dropDependent(owner.uid, uid);
      enqueue.add(owner.uid);
    }
    for (const dependent of this.dependentsByOwner.get(uid) ?? []) enqueue.add(dependent);
    return [...enqueue];
  }

  private dropDependent(owner: string, dependent: string): void {
    const dependents = this.dependentsByOwner.get(owner);
    if (!dependents) return;
    dependents.delete(dependent);
    if (dependents.size === 0) this.dependentsByOwner.delete(owner);
  }

  /**
   * Removes the objects of the resource `resourceKey` whose uids a relist of it did not find (deleted while
   * it was not watched); returns the uids to process, with the dependents of every owner without a node
   * (one of them may be such an object).
   */
  removeMissing(resourceKey: string, found: ReadonlySet<string>): string[] {
    const enqueue: string[] = [];
    for (const [uid, node] of [...this.nodes]) if (node.identity.resourceKey === resourceKey && !found.has(uid)) enqueue.push(...this.remove(uid));
    enqueue.push(...this.dependentsOfOwnersWithoutNode());
    return enqueue.filter((uid) => this.nodes.has(uid));
  }

  /** Removes every object seen in the resource `resourceKey` (no longer served); returns the uids to process, as {@link removeMissing}. */
  removeResource(resourceKey: string): string[] {
    return this.removeMissing(resourceKey, new Set());
  }

  private dependentsOfOwnersWithoutNode(): string[] {
    const result: string[] = [];
    for (const [owner, dependents] of this.dependentsByOwner) if (!this.nodes.has(owner)) result.push(...dependents);
    return result;
  }
}
