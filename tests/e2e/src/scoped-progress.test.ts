import type { RestClient } from '@kapi/client';
import { afterEach, describe, expect, it } from 'vitest';
import { backends, startServerOn } from './backends.js';
import type { TestServer } from './harness.js';
import { sample } from './metric-sample.js';

const hour = 3_600_000;

/** Writes one Lease (neither a configmap nor a secret), moving the storage's revision past both caches; its resourceVersion. */
async function writeElsewhere(client: RestClient, name: string): Promise<number> {
  const lease = await client.request<{ metadata: { resourceVersion: string } }>({
    method: 'POST',
    path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    body: { metadata: { name }, spec: { holderIdentity: 'scoped-progress-test' } },
  });
  return Number(lease.metadata.resourceVersion);
}

describe.each(backends)('consistent reads ask the storage for progress on their own resource only (%s)', (backend) => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('a consistent LIST of configmaps is current, and brings no progress notification to the secrets cache', async () => {
    // No periodic progress: every notification a cache counts answers a request. No migrator either: on a
    // fresh server it migrates every resource once (StorageState "Unknown"), and its consistent LIST of
    // secrets would rightly ask for progress on secrets in the middle of the test.
    server = await startServerOn(backend, { args: ['--progress-notify-interval=1h', '--storage-version-migrator=false'], etcdProgressNotifyIntervalMs: hour });
    const client = server.client();
    // A resource's sample appears with its cache's first notification.
    const bookmarks = async (resource: string) => (await sample(client, 'etcd_bookmark_counts', { resource })) ?? 0;
    const before = { configmaps: await bookmarks('configmaps'), secrets: await bookmarks('secrets') };

    const lists = 5;
    for (let i = 0; i < lists; i++) {
      const written = await writeElsewhere(client, `scoped-progress-${i}`);
      // Without a resourceVersion the LIST is consistent: with no configmap written since, the configmaps cache
      // can only catch up with the lease write through a progress notification (or the LIST goes to storage).
      const list = await client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: '/api/v1/configmaps' });
      expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(written);
    }

    if (backend === 'sqlite') expect(await bookmarks('configmaps')).toBeGreaterThanOrEqual(before.configmaps + lists);
    // (etcd 3.4.23, which this machine installs, answers progress requests unsafely, so kube-apiserver-lite does
    // not ask it and sends consistent reads to etcd: the hub's scoped replies are tested in storage-etcd3.)
    expect(await bookmarks('secrets')).toBe(before.secrets);
  });
});
