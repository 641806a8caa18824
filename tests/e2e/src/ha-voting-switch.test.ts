import { Etcd3 } from 'etcd3';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadKubeconfig, sleep } from '@kapi/client';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { freePort, startServer, type TestServer } from './harness.js';
import { HPA_SELECTION_KEY, hpa, voteArgs } from './ha-voting-setup.js';

type Etcd = Awaited<ReturnType<typeof startEtcd>>;
const HPA_PATH = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';

let etcd: Etcd;
let raw: Etcd3;
const servers: TestServer[] = [];

const args = (name: string, preferred: string) => voteArgs(etcd.endpoint, name, preferred);

async function selectedVersion(): Promise<string | undefined> {
  return (await raw.get(HPA_SELECTION_KEY).exec()).kvs[0]?.value.toString();
}

beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  raw = new Etcd3({ hosts: etcd.endpoint });
  // "old" creates the vote and the selection (v1); "steady" prefers v2 but is outvoted until "old" is upgraded.
  servers.push(await startServer({ port: await freePort(), args: args('old', 'autoscaling/v1'), keepDataDir: true }));
  servers.push(await startServer({ args: args('steady', 'autoscaling/v2') }));
}, 120_000);

afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => undefined);
  raw?.close();
  await etcd?.stop();
});

describe('storage-version voting on real etcd (seed 001): switch without downtime, vote GC', () => {
  it('a writer at ~50 writes/s through a replica that switches sees only 2xx, before and after the switch', async () => {
    expect(await selectedVersion()).toBe('v1');
    const steady = servers[1] as TestServer;
    const client = new RestClient(loadKubeconfig(steady.kubeconfig));
    const failures: string[] = [];
    const statusesAfterSwitch: number[] = [];
    let switched = false;
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        const started = Date.now();
        // Creates and merge patches alternate, so both write paths cross the switch.
        const response =
          n % 2 === 0
            ? await client.raw({ method: 'POST', path: HPA_PATH, body: hpa(`w${n}`, 1) })
            : await client.raw({
                method: 'PATCH',
                path: `${HPA_PATH}/w${n - 1}`,
                body: { spec: { maxReplicas: 2 } },
                contentType: 'application/merge-patch+json',
              });
        writes++;
        if (response.statusCode < 200 || response.statusCode > 299) {
          failures.push(`${response.statusCode} ${response.body.toString().slice(0, 300)}`);
        }
        if (switched) statusesAfterSwitch.push(response.statusCode);
        await sleep(Math.max(0, 20 - (Date.now() - started)));
      }
    })();

    await sleep(1000);
    // Upgrade "old" to prefer v2: its vote makes the votes agree, and the selection switches to v2.
    const old = servers[0] as TestServer;
    const port = Number(new URL(old.url).port);
    await old.stop();
    servers[0] = await startServer({ port, args: args('old', 'autoscaling/v2'), dataDir: old.dataDir, keepDataDir: true });
    for (let i = 0; i < 100 && (await selectedVersion()) !== 'v2'; i++) await sleep(100);
    expect(await selectedVersion()).toBe('v2');
    switched = true;
    await sleep(3000);
    writing = false;
    await writer;
    client.close();

    expect(failures).toEqual([]);
    expect(writes).toBeGreaterThan(50);
    expect(statusesAfterSwitch.length).toBeGreaterThan(20);
    // The steady replica writes in the new selection after the switch (strict guarantee).
    const last = await raw.get(`/registry/horizontalpodautoscalers/default/w${writes - (writes % 2 === 0 ? 2 : 1)}`).exec();
    expect(JSON.parse(last.kvs[0]?.value.toString() ?? '{}')).toMatchObject({ apiVersion: 'autoscaling/v2' });
    // And the StorageVersion API follows: both servers report encoding autoscaling/v2.
    const admin = steady.client();
    let encodings: string[] = [];
    for (let i = 0; i < 50; i++) {
      const object = await admin.request<{ status?: { storageVersions?: Array<{ encodingVersion: string }> } }>({
        method: 'GET',
        path: '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/autoscaling.horizontalpodautoscalers',
      });
      encodings = (object.status?.storageVersions ?? []).map((entry) => entry.encodingVersion);
      if (encodings.length === 2 && encodings.every((version) => version === 'autoscaling/v2')) break;
      await sleep(100);
    }
    expect(encodings).toEqual(['autoscaling/v2', 'autoscaling/v2']);
  });

  it('at bootstrap deletes the vote (and selection key) of a resource no live apiserver votes for, and keeps the others', async () => {
    const old = servers[0] as TestServer;
    const admin = old.client();
    const votes = '/apis/kube-apiserver.internal.k8s.io/v1alpha1/storageversions';
    const staleKey = '/registry/storage-version-selection/example.com.gadgets';
    const created = await admin.raw({
      method: 'POST',
      path: votes,
      body: {
        apiVersion: 'kube-apiserver.internal.k8s.io/v1alpha1',
        kind: 'StorageVersion',
        metadata: { name: 'example.com.gadgets' },
        selectedVersion: 'v1',
        candidateVersions: [{ apiServerID: 'kube-apiserver-gone', preferredVersion: 'v1' }],
      },
    });
    expect(created.statusCode).toBe(201);
    await raw.put(staleKey).value('v1').exec();

    const port = Number(new URL(old.url).port);
    await old.stop();
    servers[0] = await startServer({ port, args: args('old', 'autoscaling/v2'), dataDir: old.dataDir, keepDataDir: true });
    expect((servers[0] as TestServer).output()).toContain('storage version voting: deleted the vote of example.com.gadgets');

    const after = (servers[0] as TestServer).client();
    expect((await after.raw({ method: 'GET', path: `${votes}/example.com.gadgets` })).statusCode).toBe(404);
    expect((await raw.get(staleKey).exec()).kvs).toEqual([]);
    const hpaVote = await after.request<{ selectedVersion: string; candidateVersions: unknown[] }>({
      method: 'GET',
      path: `${votes}/autoscaling.horizontalpodautoscalers`,
    });
    expect(hpaVote.selectedVersion).toBe('v2');
    expect(hpaVote.candidateVersions).toHaveLength(2);

    // The console (opened with the admin kubeconfig's client certificate) shows the votes: the HPA's agreed
    // selection, and no row for the collected vote.
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
    try {
      const kubeconfig = loadKubeconfig((servers[0] as TestServer).kubeconfig);
      const context = await browser.newContext({
        ignoreHTTPSErrors: true,
        clientCertificates: [{ origin: (servers[0] as TestServer).url, cert: Buffer.from(kubeconfig.cert ?? ''), key: Buffer.from(kubeconfig.key ?? '') }],
      });
      const page = await context.newPage();
      await page.goto(`${(servers[0] as TestServer).url}/console/`);
      const row = page.locator('#votes [data-vote="autoscaling.horizontalpodautoscalers"][data-agreement="agree"]');
      await row.waitFor();
      expect(await row.locator('b').textContent()).toBe('v2');
      expect(await page.locator('#votes [data-vote="example.com.gadgets"]').count()).toBe(0);
    } finally {
      await browser.close();
    }
  });
});
