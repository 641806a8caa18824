import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, loadKubeconfig, sleep } from '@kapi/client';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { startReplicas, startServer, type TestServer } from './harness.js';
import { HPA_SELECTION_KEY, hpa, voteArgs } from './ha-voting-setup.js';

type Etcd = Awaited<ReturnType<typeof startEtcd>>;
const HPA_PREFIX = '/registry/horizontalpodautoscalers/';

let etcd: Etcd;
let raw: Etcd3;
let servers: TestServer[] = [];
let ports: number[] = [];

const args = (replica: number, preferred: string) => voteArgs(etcd.endpoint, `voter-${replica + 1}`, preferred);

async function selection(): Promise<{ version: string; revision: number } | undefined> {
  const response = await raw.get(HPA_SELECTION_KEY).exec();
  const kv = response.kvs[0];
  return kv ? { version: kv.value.toString(), revision: Number(kv.mod_revision) } : undefined;
}

beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  raw = new Etcd3({ hosts: etcd.endpoint });
  ({ servers, ports } = await startReplicas(3, (replica) => args(replica, 'autoscaling/v1')));
});

afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => undefined);
  raw?.close();
  await etcd?.stop();
});

describe('storage-version voting mode (seed 001, strict guarantee) on real etcd', () => {
  it('every stored HPA is in the selected version, which switches only after the last replica votes', async () => {
    expect(await selection()).toMatchObject({ version: 'v1' });
    // Record every write to HPAs straight from etcd.
    const writes: Array<{ revision: number; apiVersion: string }> = [];
    const watcher = await raw.watch().prefix(HPA_PREFIX).startRevision('1').create();
    watcher.on('put', (kv) =>
      writes.push({
        revision: Number(kv.mod_revision),
        apiVersion: (JSON.parse(kv.value.toString()) as { apiVersion: string }).apiVersion,
      }),
    );

    // Writers through two replicas, racing the switch.
    let writing = true;
    let written = 0;
    const writer = async (replica: number) => {
      let n = 0;
      while (writing) {
        const server = servers[replica] as TestServer;
        const client = new RestClient(loadKubeconfig(server.kubeconfig));
        try {
          const name = `w${replica}-${n++ % 5}`;
          const path = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
          const created = await client.raw({ method: 'POST', path, body: hpa(name, n) });
          if (created.statusCode === 409) {
            await client.raw({
              method: 'PATCH',
              path: `${path}/${name}`,
              body: { spec: { maxReplicas: n + 1 } },
              contentType: 'application/merge-patch+json',
            });
          }
          written++;
        } catch {
          // replica restarting
        } finally {
          client.close();
        }
        await sleep(5);
      }
    };
    const writers = [writer(0), writer(1)];

    let revisionBeforeLastVote = 0;
    for (let replica = 0; replica < 3; replica++) {
      if (replica === 2) revisionBeforeLastVote = Number((await raw.get('x').exec()).header.revision);
      else expect((await selection())?.version).toBe('v1');
      await (servers[replica] as TestServer).stop();
      servers[replica] = await startServer({
        port: ports[replica] as number,
        args: args(replica, 'autoscaling/v2'),
        dataDir: (servers[replica] as TestServer).dataDir,
        keepDataDir: true,
      });
      await sleep(1500);
      if (replica < 2) expect((await selection())?.version).toBe('v1');
    }
    const switched = await selection();
    expect(switched?.version).toBe('v2');
    expect(switched?.revision).toBeGreaterThan(revisionBeforeLastVote);
    await sleep(2000);
    writing = false;
    await Promise.all(writers);
    await sleep(500);
    await watcher.cancel();

    const switchRevision = switched?.revision ?? 0;
    expect(written).toBeGreaterThan(20);
    expect(writes.some((w) => w.revision < switchRevision)).toBe(true);
    expect(writes.some((w) => w.revision > switchRevision)).toBe(true);
    for (const write of writes) {
      expect(write.apiVersion).toBe(write.revision < switchRevision ? 'autoscaling/v1' : 'autoscaling/v2');
    }
    // The discovery document of every replica follows the selection.
    const client = new RestClient(loadKubeconfig((servers[0] as TestServer).kubeconfig));
    const discovery = await client.request<{
      resources: Array<{ name: string; storageVersionHash?: string }>;
    }>({ method: 'GET', path: '/apis/autoscaling/v2' });
    const { storageVersionHash } = await import('@kapi/apimachinery');
    expect(discovery.resources.find((r) => r.name === 'horizontalpodautoscalers')?.storageVersionHash).toBe(
      storageVersionHash('autoscaling', 'v2', 'HorizontalPodAutoscaler'),
    );
    client.close();
  });
});
