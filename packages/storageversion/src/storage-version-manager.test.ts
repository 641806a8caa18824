import { Scheme } from '@kapi/apimachinery';
import { ResourceClient, RestClient } from '@kapi/client';
import { GenericAPIServerConfig, ServerMetrics, type GenericAPIServer } from '@kapi/server';
import { Store } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { storageVersionKind, storageVersionResource, type StorageVersion } from './storage-version-api.js';
import { StorageVersionManager, type ResourceInfo } from './storage-version-manager.js';

const widgets = { group: 'example.com', resource: 'widgets' };
const info = (version: string): ResourceInfo => ({
  groupResource: widgets,
  encodingVersion: `example.com/${version}`,
  decodableVersions: ['example.com/v1', 'example.com/v2'],
  servedVersions: ['example.com/v1', 'example.com/v2'],
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A real apiserver serving storageversions over memory storage, and a client of them. */
async function storageVersionsServer(): Promise<ResourceClient<StorageVersion>> {
  const scheme = new Scheme();
  scheme.addKind(storageVersionKind);
  const backend = new MemoryBackend();
  const server: GenericAPIServer = new GenericAPIServerConfig({
    scheme,
    storage: ({ codec }) => new Store({ kv: backend, codec }),
    metrics: new ServerMetrics({ defaultMetrics: false }),
  })
    .complete()
    .new();
  server.installResource(storageVersionResource);
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  const rest = new RestClient({ server: url });
  closers.push(async () => {
    rest.close();
    await server.shutdown();
  });
  return new ResourceClient<StorageVersion>(rest, { group: 'internal.apiserver.k8s.io', version: 'v1alpha1', resource: 'storageversions', namespaced: false });
}

describe('StorageVersionManager', () => {
  it('publishes the entry and common encoding version, and opens the resource', async () => {
    const client = await storageVersionsServer();
    const manager = new StorageVersionManager({ retryDelayMs: 10 });
    manager.addResourceInfo(info('v2'));
    expect(manager.isPending(widgets)).toBe(true);
    expect(await manager.updateStorageVersions('server-a', { storageVersions: client })).toBe(true);
    expect(manager.isPending(widgets)).toBe(false);
    const published = await client.get(undefined, 'example.com.widgets');
    const { groupResource: _, ...versions } = info('v2');
    expect(published.status?.storageVersions).toEqual([{ apiServerID: 'server-a', ...versions }]);
    expect(published.status?.commonEncodingVersion).toBe('example.com/v2');
  });

  it('writes the version registered when it writes, so an update begun before a switch never publishes the old version', async () => {
    const client = await storageVersionsServer();
    const manager = new StorageVersionManager({ retryDelayMs: 10 });
    manager.addResourceInfo(info('v2'));
    // The version switches while the update has read the object and not yet written it.
    const switching = Object.create(client) as ResourceClient<StorageVersion>;
    let switched = false;
    switching.get = async (...args) => {
      try {
        return await client.get(...args);
      } finally {
        if (!switched) manager.replaceResourceInfo(info('v1'));
        switched = true;
      }
    };
    expect(await manager.updateStorageVersions('server-a', { storageVersions: switching })).toBe(true);
    expect(switched).toBe(true);
    expect((await client.get(undefined, 'example.com.widgets')).status?.commonEncodingVersion).toBe('example.com/v1');
  });

  it('retries a conflict with the version registered at the retry', async () => {
    const client = await storageVersionsServer();
    const manager = new StorageVersionManager({ retryDelayMs: 10 });
    manager.addResourceInfo(info('v2'));
    // Another writer updates the object between this update's read and write; meanwhile the version switches.
    const racing = Object.create(client) as ResourceClient<StorageVersion>;
    let raced = false;
    racing.updateStatus = async (...args) => {
      if (!raced) {
        raced = true;
        const current = await client.get(undefined, 'example.com.widgets');
        await client.updateStatus(undefined, { ...current, status: { ...current.status, storageVersions: [] } });
        manager.replaceResourceInfo(info('v1'));
      }
      return client.updateStatus(...args);
    };
    expect(await manager.updateStorageVersions('server-a', { storageVersions: racing })).toBe(true);
    expect(raced).toBe(true);
    const published = await client.get(undefined, 'example.com.widgets');
    expect(published.status?.storageVersions?.map((entry) => entry.encodingVersion)).toEqual(['example.com/v1']);
  });

  it('neither creates nor writes the StorageVersion of a resource removed before its write', async () => {
    const client = await storageVersionsServer();
    const manager = new StorageVersionManager({ retryDelayMs: 10 });
    manager.addResourceInfo(info('v2'));
    const removing = Object.create(client) as ResourceClient<StorageVersion>;
    removing.get = async (...args) => {
      manager.removeResourceInfo(widgets);
      return client.get(...args);
    };
    expect(await manager.updateStorageVersion('server-a', { storageVersions: removing }, widgets)).toBe(true);
    // Not made again (its CRD's deletion removed it).
    await expect(client.get(undefined, 'example.com.widgets')).rejects.toMatchObject({ code: 404 });
  });
});
