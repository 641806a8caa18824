import type { WatchEvent } from '@kapi/apimachinery';
import { sleep } from '@kapi/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';

const leasesPath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
const storageVersionsPath = '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions';

/** Identity leases in kube-system (the post-start hooks ran: the server is ready). */
async function identityLeases(server: TestServer): Promise<string[]> {
  const list = await server.client().request<{ items: Array<{ metadata: { name: string } }> }>({
    method: 'GET',
    path: leasesPath,
    query: { labelSelector: 'apiserver.kubernetes.io/identity=kube-apiserver' },
  });
  return list.items.map((lease) => lease.metadata.name);
}

async function storageVersionsStatus(server: TestServer): Promise<number> {
  return (await server.client().raw({ method: 'GET', path: storageVersionsPath })).statusCode;
}

/**
 * The highest bookmark revision a bookmark watch on idle secrets receives within `waitMs` after a config
 * map is written elsewhere, and that write's revision.
 */
async function idleBookmark(server: TestServer, waitMs: number): Promise<{ bookmark: number; write: number }> {
  const client = server.client();
  const list = await client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: '/api/v1/namespaces/default/secrets' });
  const stream = await client.watch({
    path: '/api/v1/namespaces/default/secrets',
    query: { allowWatchBookmarks: true, resourceVersion: list.metadata.resourceVersion },
  });
  let bookmark = 0;
  const read = (async () => {
    for await (const event of stream as AsyncIterable<WatchEvent>) {
      if (event.type === 'BOOKMARK') bookmark = Math.max(bookmark, Number(event.object.metadata.resourceVersion));
    }
  })().catch(() => undefined);
  const created = await client.request<{ metadata: { resourceVersion: string } }>({
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { metadata: { generateName: 'elsewhere-' } },
  });
  const write = Number(created.metadata.resourceVersion);
  for (const deadline = Date.now() + waitMs; Date.now() < deadline && bookmark < write; ) await sleep(50);
  stream.stop();
  await read;
  return { bookmark, write };
}

describe('feature gates over HTTP', () => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  const start = (gates: string) =>
    startServer({ args: ['--storage=sqlite', '--progress-notify-interval=500ms', ...(gates ? [`--feature-gates=${gates}`] : [])] });

  it('by default: identity lease, StorageVersion API, progress bookmarks on idle resources', async () => {
    server = await start('');
    expect(await identityLeases(server)).toHaveLength(1);
    expect(await storageVersionsStatus(server)).toBe(200);
    const { bookmark, write } = await idleBookmark(server, 10_000);
    expect(bookmark).toBeGreaterThanOrEqual(write);
  });

  it('APIServerIdentity on without the StorageVersion API; EfficientWatchResumption off', async () => {
    server = await start('APIServerIdentity=true,StorageVersionAPI=false,EfficientWatchResumption=false');
    expect(await identityLeases(server)).toHaveLength(1);
    expect(await storageVersionsStatus(server)).toBe(404);
    // Ten progress intervals without a bookmark: the idle cache no longer follows the store's progress.
    const { bookmark, write } = await idleBookmark(server, 5_000);
    expect(bookmark).toBeLessThan(write);
  });

  it('APIServerIdentity off: no identity lease', async () => {
    server = await start('APIServerIdentity=false,StorageVersionAPI=false');
    expect(await identityLeases(server)).toEqual([]);
    expect(await storageVersionsStatus(server)).toBe(404);
  });
});
