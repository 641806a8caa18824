import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { AbsentOwnerCache } from './absent-owner-cache.js';
import { UnknownOwnerKindError, attemptToDelete, type GarbageCollectorContext, type ObjectApi } from './attempt-to-delete.js';
import { OwnerGraph } from './owner-graph.js';

/** An in-memory API over objects keyed by kind/namespace/name, recording writes. */
function fakeApi(objects: KubeObject[]) {
  const store = new Map(objects.map((o) => [`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o]));
  const writes: string[] = [];
  const api: ObjectApi = {
    mapping: (apiVersion, kind) => (['ConfigMap', 'Secret'].includes(kind) && apiVersion === 'v1' ? { namespaced: true } : kind === 'Node' ? { namespaced: false } : undefined),
    get: (reference) => Promise.resolve(store.get(`${reference.kind}/${reference.namespace}/${reference.name}`)),
    patch: (identity, patch) => {
      writes.push(`patch ${identity.name} ${JSON.stringify(patch)}`);
      const key = `${identity.kind}/${identity.namespace}/${identity.name}`;
      const current = store.get(key) as KubeObject;
      const metadata = { ...current.metadata, ...(patch['metadata'] as object) } as Record<string, unknown>;
      for (const field of Object.keys(metadata)) if (metadata[field] === null) delete metadata[field];
      store.set(key, { ...current, metadata: metadata as KubeObject['metadata'] });
      return Promise.resolve();
    },
    delete: (identity, policy) => {
      writes.push(`delete ${identity.name} ${policy}`);
      return Promise.resolve();
    },
  };
  return { api, store, writes };
}

const configMap = (name: string, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1', ...metadata },
});
const ref = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid: `uid-${name}`, ...extra });

function setUp(objects: KubeObject[], synced = true) {
  const graph = new OwnerGraph();
  const { api, store, writes } = fakeApi(objects);
  for (const object of objects) graph.upsert({ resourceKey: '/configmaps', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: object.metadata.name ?? '' }, object);
  const enqueued: string[] = [];
  const context: GarbageCollectorContext = { graph, api, enqueue: (uid) => enqueued.push(uid), synced: () => synced, log: () => undefined };
  return { context, store, writes, enqueued };
}

describe('attemptToDelete', () => {
  it('deletes a dependent whose owners are all gone (absent, or another uid), in the background', async () => {
    const { context, writes } = setUp([configMap('child', { ownerReferences: [ref('gone'), ref('replaced')] }), configMap('replaced', { uid: 'other' })]);
    await attemptToDelete(context, 'uid-child');
    expect(writes).toEqual(['delete child Background']);
  });

  it('removes only the dangling references when an owner remains', async () => {
    const { context, writes, store } = setUp([configMap('child', { ownerReferences: [ref('gone'), ref('alive')] }), configMap('alive')]);
    await attemptToDelete(context, 'uid-child');
    expect(writes).toHaveLength(1);
    expect(store.get('ConfigMap/default/child')?.metadata.ownerReferences).toEqual([ref('alive')]);
    // Nothing more to do.
    await attemptToDelete(context, 'uid-child');
    expect(writes).toHaveLength(1);
  });

  it('reads a gone owner once for all its dependents (absentOwnerCache), and a live owner for each', async () => {
    const objects = [
      configMap('a', { ownerReferences: [ref('gone')] }),
      configMap('b', { ownerReferences: [ref('gone')] }),
      configMap('c', { ownerReferences: [ref('gone'), ref('alive')] }),
      configMap('d', { ownerReferences: [ref('alive')] }),
      configMap('alive'),
    ];
    const { context, writes } = setUp(objects);
    const reads: string[] = [];
    const get = context.api.get;
    context.api.get = (reference) => (reads.push(reference.name), get(reference));
    context.absentOwners = new AbsentOwnerCache();
    for (const name of ['a', 'b', 'c', 'd']) await attemptToDelete(context, `uid-${name}`);
    expect(writes).toEqual(['delete a Background', 'delete b Background', expect.stringMatching(/^patch c /)]);
    expect(reads.filter((name) => name === 'gone')).toHaveLength(1);
    expect(reads.filter((name) => name === 'alive')).toHaveLength(2);
  });

  it('absentOwnerCache: keyed by namespace and uid, the least recently used dropped past its size', () => {
    const cache = new AbsentOwnerCache(2);
    cache.add('u1', 'ns');
    expect(cache.has('u1', 'ns')).toBe(true);
    expect(cache.has('u1', 'other')).toBe(false);
    cache.add('u2', 'ns');
    expect(cache.has('u1', 'ns')).toBe(true); // u1 is now the most recently used
    cache.add('u3', 'ns');
    expect([cache.has('u1', 'ns'), cache.has('u2', 'ns'), cache.has('u3', 'ns')]).toEqual([true, false, true]);
    expect(cache.length).toBe(2);
  });

  it('leaves a dependent of an unknown kind alone', async () => {
    const { context, writes } = setUp([configMap('child', { ownerReferences: [{ apiVersion: 'x.io/v1', kind: 'Thing', name: 't', uid: 'u' }] })]);
    await expect(attemptToDelete(context, 'uid-child')).rejects.toBeInstanceOf(UnknownOwnerKindError);
    expect(writes).toEqual([]);
  });

  it('foreground: waits for blocking dependents, then removes the foregroundDeletion finalizer', async () => {
    const owner = configMap('owner', { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] });
    const child = configMap('child', { ownerReferences: [ref('owner', { blockOwnerDeletion: true })] });
    const { context, writes, enqueued, store } = setUp([owner, child]);
    await attemptToDelete(context, 'uid-owner');
    expect(enqueued).toEqual(['uid-child']);
    expect(writes).toEqual([]);
    // The dependent of an owner waiting on it is deleted (it has no dependents: background).
    await attemptToDelete(context, 'uid-child');
    expect(writes).toEqual(['delete child Background']);
    context.graph.remove('uid-child');
    await attemptToDelete(context, 'uid-owner');
    expect(store.get('ConfigMap/default/owner')?.metadata.finalizers).toEqual([]);
  });

  it('foreground: a dependent in a cycle of blocking references stops blocking before it is deleted (no deadlock)', async () => {
    // a and b own each other; a is being deleted in the foreground, b is its blocking dependent and waits on a.
    const a = configMap('a', { deletionTimestamp: 't', finalizers: ['foregroundDeletion'], ownerReferences: [ref('b', { blockOwnerDeletion: true })] });
    const b = configMap('b', { ownerReferences: [ref('a', { blockOwnerDeletion: true })] });
    const { context, writes, store } = setUp([a, b]);
    await attemptToDelete(context, 'uid-b');
    expect(store.get('ConfigMap/default/b')?.metadata.ownerReferences).toEqual([ref('a', { blockOwnerDeletion: false })]);
    expect(writes.at(-1)).toBe('delete b Foreground');
    // Without a blocking dependent left, a's deletion finishes.
    context.graph.upsert({ resourceKey: '/configmaps', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'b' }, store.get('ConfigMap/default/b') as KubeObject);
    await attemptToDelete(context, 'uid-a');
    expect(store.get('ConfigMap/default/a')?.metadata.finalizers).toEqual([]);
  });

  it('does not finish foreground deletion or orphaning before every resource is listed', async () => {
    const { context, writes } = setUp([configMap('owner', { deletionTimestamp: 't', finalizers: ['orphan'] })], false);
    await expect(attemptToDelete(context, 'uid-owner')).rejects.toThrow('waiting');
    expect(writes).toEqual([]);
  });

  it('orphan: removes the references to the owner, then its orphan finalizer', async () => {
    const owner = configMap('owner', { deletionTimestamp: 't', finalizers: ['orphan'] });
    const child = configMap('child', { ownerReferences: [ref('owner'), ref('other')] });
    const { context, store } = setUp([owner, child, configMap('other')]);
    await attemptToDelete(context, 'uid-owner');
    expect(store.get('ConfigMap/default/child')?.metadata.ownerReferences).toEqual([ref('other')]);
    expect(store.get('ConfigMap/default/owner')?.metadata.finalizers).toEqual([]);
  });
});
