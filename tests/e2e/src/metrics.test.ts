import type { RestClient } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startServer, type TestServer } from './harness.js';
import { sample, sampleUntil } from './metric-sample.js';

describe('metrics named as upstream names them', () => {
  let server: TestServer;
  let client: RestClient;

  beforeAll(async () => {
    // No migrator: on a fresh server it migrates every resource once, and its consistent LISTs would move
    // the consistent-read counts that a test here counts exactly. No garbage collector: its informers watch
    // every resource (with bookmarks), and a test here expects a cache without watchers.
    server = await startServer({ args: ['--storage=sqlite', '--progress-notify-interval=500ms', '--storage-version-migrator=false', '--enable-garbage-collector=false'] });
    client = server.client();
  });

  afterAll(async () => {
    await server?.stop();
  });

  const createConfigMap = async (name: string) =>
    Number(
      (
        await client.request<{ metadata: { resourceVersion: string } }>({
          method: 'POST',
          path: '/api/v1/namespaces/default/configmaps',
          body: { metadata: { name } },
        })
      ).metadata.resourceVersion,
    );

  it('kubernetes_healthcheck{name,type} for each health endpoint', async () => {
    await client.raw({ method: 'GET', path: '/healthz' });
    for (const type of ['healthz', 'livez', 'readyz']) {
      expect(await sampleUntil(client, 'kubernetes_healthcheck', { name: 'ping', type }, (v) => v === 1)).toBe(1);
    }
    expect(await sample(client, 'kubernetes_healthcheck', { name: 'shutdown', type: 'readyz' })).toBe(1);
  });

  it('apiserver_request_total{dry_run} tells dry-run writes apart (kubectl --dry-run=server)', async () => {
    const labels = { verb: 'POST', resource: 'configmaps', dry_run: 'All', code: '201' };
    const before = (await sample(client, 'apiserver_request_total', labels)) ?? 0;
    await kubectl(server, ['create', 'configmap', 'dry-run-metric', '--dry-run=server']);
    expect(await sample(client, 'apiserver_request_total', labels)).toBe(before + 1);
    expect((await client.raw({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/dry-run-metric' })).statusCode).toBe(404);
    // A real write counts under dry_run="".
    const real = { ...labels, dry_run: '' };
    const realBefore = (await sample(client, 'apiserver_request_total', real)) ?? 0;
    await createConfigMap('real-write-metric');
    expect(await sample(client, 'apiserver_request_total', real)).toBe(realBefore + 1);
    expect(await sample(client, 'apiserver_request_total', labels)).toBe(before + 1);
  });

  it('apiserver_storage_objects{resource} follows creates', async () => {
    const before = (await sample(client, 'apiserver_storage_objects', { resource: 'configmaps' })) ?? -1;
    expect(before).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < 3; i++) await createConfigMap(`objects-${i}`);
    expect(await sample(client, 'apiserver_storage_objects', { resource: 'configmaps' })).toBe(before + 3);
  });

  it('apiserver_watch_events_total and the watch cache metrics move with a watched write', async () => {
    const kind = { group: '', version: 'v1', kind: 'ConfigMap' };
    const cache = { resource: 'configmaps' };
    const sentBefore = (await sample(client, 'apiserver_watch_events_total', kind)) ?? 0;
    const receivedBefore = (await sample(client, 'apiserver_watch_cache_events_received_total', cache)) ?? 0;
    const list = await client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: '/api/v1/namespaces/default/configmaps' });
    const stream = await client.watch({ path: '/api/v1/namespaces/default/configmaps', query: { resourceVersion: list.metadata.resourceVersion } });
    const iterator = stream[Symbol.asyncIterator]();
    const revision = await createConfigMap('watched');
    expect((await iterator.next()).value).toMatchObject({ type: 'ADDED' });
    stream.stop();

    expect(await sampleUntil(client, 'apiserver_watch_events_total', kind, (v) => v > sentBefore)).toBeGreaterThan(sentBefore);
    expect(await sample(client, 'apiserver_watch_cache_events_received_total', cache)).toBeGreaterThan(receivedBefore);
    expect(await sample(client, 'apiserver_watch_cache_resource_version', cache)).toBeGreaterThanOrEqual(revision);
    expect(await sample(client, 'apiserver_watch_cache_initializations_total', cache)).toBeGreaterThanOrEqual(1);
  });

  it('a paged consistent LIST (as kubectl get asks: limit, no resourceVersion) is a consistent read from the cache', async () => {
    await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: 'paged' } } });
    for (const name of ['p1', 'p2', 'p3']) {
      await client.request({ method: 'POST', path: '/api/v1/namespaces/paged/configmaps', body: { metadata: { name } } });
    }
    const fromCache = { resource: 'configmaps', success: 'true', fallback: 'false' };
    const before = (await sample(client, 'apiserver_watch_cache_consistent_read_total', fromCache)) ?? 0;
    type Page = { metadata: { continue?: string; remainingItemCount?: number }; items: Array<{ metadata: { name: string } }> };
    const path = '/api/v1/namespaces/paged/configmaps';
    const first = await client.request<Page>({ method: 'GET', path, query: { limit: 2 } });
    expect(first.items.map((item) => item.metadata.name)).toEqual(['p1', 'p2']);
    expect(first.metadata.remainingItemCount).toBe(1);
    const second = await client.request<Page>({ method: 'GET', path, query: { limit: 2, continue: first.metadata.continue } });
    expect(second.items.map((item) => item.metadata.name)).toEqual(['p3']);
    expect(second.metadata.continue).toBeUndefined();
    // The first page came from the cache; the next one, an exact read at its revision, from the storage.
    expect(await sample(client, 'apiserver_watch_cache_consistent_read_total', fromCache)).toBe(before + 1);
  });

  it('etcd_bookmark_counts{resource} counts the storage progress notifications of an idle cache', async () => {
    const before = (await sampleUntil(client, 'etcd_bookmark_counts', { resource: 'secrets' }, () => true)) ?? -1;
    expect(before).toBeGreaterThanOrEqual(0);
    expect(await sampleUntil(client, 'etcd_bookmark_counts', { resource: 'secrets' }, (v) => v > before)).toBeGreaterThan(before);
  });

  it('the watch cache health: history window, watchers and bookmark lag, by resource', async () => {
    const cache = { resource: 'configmaps' };
    expect(await sample(client, 'apiserver_watch_cache_capacity', { group: '', resource: 'configmaps' })).toBeGreaterThanOrEqual(100);
    expect(await sample(client, 'apiserver_watch_cache_capacity', { group: 'coordination.k8s.io', resource: 'leases' })).toBeGreaterThanOrEqual(100);
    const eventsBefore = (await sample(client, 'kapi_watch_cache_history_events', cache)) ?? -1;
    expect(eventsBefore).toBeGreaterThanOrEqual(0);
    const watchersBefore = (await sample(client, 'kapi_watch_cache_watchers', cache)) ?? -1;
    expect(watchersBefore).toBeGreaterThanOrEqual(0);

    const stream = await client.watch({ path: '/api/v1/namespaces/default/configmaps', query: { resourceVersion: '0', allowWatchBookmarks: 'true' } });
    const first = await createConfigMap('health-1');
    const last = await createConfigMap('health-2');
    expect(await sampleUntil(client, 'kapi_watch_cache_history_events', cache, (v) => v >= eventsBefore + 2)).toBeGreaterThanOrEqual(eventsBefore + 2);
    expect(await sample(client, 'kapi_watch_cache_watchers', cache)).toBe(watchersBefore + 1);
    const oldest = (await sample(client, 'kapi_watch_cache_history_oldest_resource_version', cache)) ?? Infinity;
    expect(oldest).toBeLessThan(first);
    expect(await sample(client, 'apiserver_watch_cache_resource_version', cache)).toBeGreaterThanOrEqual(last);
    expect(await sample(client, 'kapi_watch_cache_history_age_seconds', cache)).toBeGreaterThan(0);
    stream.stop();
    expect(await sampleUntil(client, 'kapi_watch_cache_watchers', cache, (v) => v === watchersBefore)).toBe(watchersBefore);

    // An idle cache trails the storage by the writes elsewhere until the storage's progress notification reaches it.
    const idle = { resource: 'secrets' };
    expect(await sampleUntil(client, 'kapi_watch_cache_resource_version_lag', idle, (v) => v > 0)).toBeGreaterThan(0);
    expect(await sampleUntil(client, 'kapi_watch_cache_resource_version_lag', idle, (v) => v === 0)).toBe(0);
  });

  it('kapi_watch_cache_bookmark_lag_seconds appears once the cache sends a watcher its first progress bookmark', async () => {
    const cache = { resource: 'events' };
    expect(await sample(client, 'kapi_watch_cache_bookmark_lag_seconds', cache)).toBeUndefined();
    const stream = await client.watch({ path: '/api/v1/namespaces/default/events', query: { resourceVersion: '0', allowWatchBookmarks: 'true' } });
    try {
      const lag = await sampleUntil(client, 'kapi_watch_cache_bookmark_lag_seconds', cache, () => true);
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(lag).toBeLessThan(5); // storage progress reaches the cache every 500 ms
    } finally {
      stream.stop();
    }
  });
});
