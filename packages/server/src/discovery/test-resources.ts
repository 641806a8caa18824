import { createHash } from 'node:crypto';
import type { InstalledResource } from './discovery-documents.js';

/** Test helper (not exported): the storage version hash, computed locally (apimachinery's may not exist yet). */
export function localStorageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** Test helper (not exported): a small mixed set of installed resources. */
export function sampleResources(): InstalledResource[] {
  return [
    {
      definition: { group: '', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, versions: ['v1'], shortNames: ['cm'] },
      storageVersionHash: localStorageVersionHash('', 'v1', 'ConfigMap'),
    },
    {
      definition: {
        group: '',
        resource: 'namespaces',
        kind: 'Namespace',
        namespaced: false,
        versions: ['v1'],
        shortNames: ['ns'],
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
        subresources: { status: true },
      },
      storageVersionHash: localStorageVersionHash('', 'v1', 'Namespace'),
    },
    {
      definition: {
        group: 'apps',
        resource: 'deployments',
        kind: 'Deployment',
        namespaced: true,
        versions: ['v1'],
        shortNames: ['deploy'],
        categories: ['all'],
        subresources: { status: true },
      },
      storageVersionHash: localStorageVersionHash('apps', 'v1', 'Deployment'),
    },
    {
      definition: {
        group: 'example.com',
        resource: 'widgets',
        kind: 'Widget',
        namespaced: true,
        versions: ['v1', 'v1beta1'],
        shortNames: ['wd'],
        subresources: { status: true },
      },
      storageVersionHash: localStorageVersionHash('example.com', 'v1', 'Widget'),
    },
    {
      definition: { group: 'example.com', resource: 'gadgets', kind: 'Gadget', singularName: 'gadget', namespaced: false, versions: ['v1'] },
    },
  ];
}
