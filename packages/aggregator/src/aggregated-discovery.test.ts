import { describe, expect, it } from 'vitest';
import { aggregatedDiscoveryDocument, apiGroupListDocument, type APIResourceList } from '@kapi/server';
import type { APIService } from './apiservice-kind.js';
import { AggregatedDiscovery } from './aggregated-discovery.js';

const apiService = (group: string, version: string, groupPriorityMinimum: number, versionPriority: number): APIService => ({
  metadata: { name: `${version}.${group}` },
  spec: { group, version, service: { namespace: 'ns', name: 'api' }, groupPriorityMinimum, versionPriority },
});

const list = (group: string, version: string): APIResourceList => ({
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${group}/${version}`,
  resources: [
    { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'] },
    { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get'] },
  ],
});

describe('AggregatedDiscovery', () => {
  it('orders groups by groupPriorityMinimum and versions by versionPriority, keeping subresources', () => {
    const discovery = new AggregatedDiscovery();
    discovery.update(apiService('low.example.com', 'v1', 100, 15), list('low.example.com', 'v1'));
    discovery.update(apiService('wardle.example.com', 'v1alpha1', 1000, 10), list('wardle.example.com', 'v1alpha1'));
    discovery.update(apiService('wardle.example.com', 'v1beta1', 1000, 15), list('wardle.example.com', 'v1beta1'));
    const groups = apiGroupListDocument(discovery.resources(), []).groups;
    expect(groups.map((group) => [group.name, group.versions.map((version) => version.version)])).toEqual([
      ['wardle.example.com', ['v1beta1', 'v1alpha1']],
      ['low.example.com', ['v1']],
    ]);
    const resource = discovery.resources()[0]?.definition;
    expect(resource).toMatchObject({ resource: 'flunders', shortNames: ['fl'], subresources: { status: true } });
  });

  it('keeps a version whose backend failed, Stale, and forgets a removed APIService', () => {
    const discovery = new AggregatedDiscovery();
    discovery.update(apiService('wardle.example.com', 'v1alpha1', 1000, 15), list('wardle.example.com', 'v1alpha1'));
    discovery.setOpenAPIV3URL('v1alpha1.wardle.example.com', '/openapi/v3/apis/wardle.example.com/v1alpha1?hash=AB');
    expect(discovery.openAPIV3Paths()).toEqual({ 'apis/wardle.example.com/v1alpha1': '/openapi/v3/apis/wardle.example.com/v1alpha1?hash=AB' });
    discovery.markStale('v1alpha1.wardle.example.com');
    const document = aggregatedDiscoveryDocument(discovery.resources(), 'apis');
    expect(document.items[0]?.versions[0]?.freshness).toBe('Stale');
    expect(discovery.openAPIV3Paths()).toEqual({});
    discovery.remove('v1alpha1.wardle.example.com');
    expect(discovery.resources()).toEqual([]);
  });
});
