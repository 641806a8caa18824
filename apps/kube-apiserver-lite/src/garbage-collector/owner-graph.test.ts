import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { OwnerGraph } from './owner-graph.js';

const at = { resourceKey: '/configmaps', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' };
const object = (uid: string, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  metadata: { uid, name: uid, namespace: 'default', ...metadata },
});
const owned = (uid: string, owners: string[], block = false) =>
  object(uid, { ownerReferences: owners.map((owner) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: owner, blockOwnerDeletion: block })) });

describe('OwnerGraph', () => {
  it('links dependents to owners, even owners not seen yet', () => {
    const graph = new OwnerGraph();
    expect(graph.upsert({ ...at, name: 'child' }, owned('child', ['owner']))).toEqual(['child']);
    expect(graph.dependents('owner').map((node) => node.identity.uid)).toEqual(['child']);
    expect(graph.upsert({ ...at, name: 'owner' }, object('owner'))).toEqual([]);
    // Unchanged references are not processed again.
    expect(graph.upsert({ ...at, name: 'child' }, owned('child', ['owner']))).toEqual([]);
  });

  it('processes the dependents and owners of a removed object', () => {
    const graph = new OwnerGraph();
    graph.upsert({ ...at, name: 'owner' }, object('owner'));
    graph.upsert({ ...at, name: 'child' }, owned('child', ['owner']));
    graph.upsert({ ...at, name: 'grandchild' }, owned('grandchild', ['child']));
    expect(graph.remove('child').sort()).toEqual(['grandchild', 'owner']);
    expect(graph.dependents('owner')).toEqual([]);
  });

  it('processes an owner entering foreground deletion and all its dependents, and an orphaning owner', () => {
    const graph = new OwnerGraph();
    graph.upsert({ ...at, name: 'owner' }, object('owner'));
    graph.upsert({ ...at, name: 'a' }, owned('a', ['owner'], true));
    graph.upsert({ ...at, name: 'b' }, owned('b', ['owner']));
    const deleting = object('owner', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] });
    expect(graph.upsert({ ...at, name: 'owner' }, deleting).sort()).toEqual(['a', 'b', 'owner']);
    expect(graph.upsert({ ...at, name: 'other' }, object('other', { deletionTimestamp: 'x', finalizers: ['orphan'] }))).toEqual(['other']);
  });

  it('processes an owner whose reference was removed from a dependent', () => {
    const graph = new OwnerGraph();
    graph.upsert({ ...at, name: 'child' }, owned('child', ['x', 'y']));
    expect(graph.upsert({ ...at, name: 'child' }, owned('child', ['y'])).sort()).toEqual(['child', 'x']);
    expect(graph.dependents('x')).toEqual([]);
  });

  it('holds no node for an object with nothing to collect, yet processes its dependents when it goes', () => {
    const graph = new OwnerGraph();
    expect(graph.upsert({ ...at, name: 'owner' }, object('owner'))).toEqual([]);
    expect(graph.size).toBe(0);
    graph.upsert({ ...at, name: 'child' }, owned('child', ['owner']));
    expect(graph.size).toBe(1);
    expect(graph.remove('owner')).toEqual(['child']);
    // A dependent that loses its last owner reference is forgotten, and the owner looked at.
    expect(graph.upsert({ ...at, name: 'child' }, object('child'))).toEqual(['owner']);
    expect(graph.size).toBe(0);
    expect(graph.dependents('owner')).toEqual([]);
  });

  it('after a relist, processes the dependents of owners it holds no node for (one may have gone unseen)', () => {
    const graph = new OwnerGraph();
    graph.upsert({ ...at, name: 'owner' }, object('owner'));
    graph.upsert({ ...at, resourceKey: 'apps/deployments', name: 'child' }, owned('child', ['owner']));
    graph.upsert({ ...at, resourceKey: 'apps/deployments', name: 'gone' }, owned('gone', ['other']));
    expect(graph.removeMissing('/configmaps', new Set()).sort()).toEqual(['child', 'gone']);
    // Objects of another resource with nodes are not removed by it.
    expect(graph.size).toBe(2);
    expect(graph.removeResource('apps/deployments')).toEqual([]);
    expect(graph.size).toBe(0);
  });
});
