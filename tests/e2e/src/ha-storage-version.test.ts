import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceClient, RestClient, loadKubeconfig, sleep, type Lease } from '@kapi/client';
import { apiserverIdentity } from '@kapi/identity';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { startReplicas, startServer, type TestServer, until } from './harness.js';

type Etcd = Awaited<ReturnType<typeof startEtcd>>;
interface StorageVersionObject {
  metadata: { name: string };
  status?: {
    storageVersions?: Array<{ apiServerID: string; encodingVersion: string; decodableVersions: string[] }>;
    commonEncodingVersion?: string;
    conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
  };
}

const HPA_SV = 'autoscaling.horizontalpodautoscalers';
const BARRIER_MESSAGE =
  'wait for storage version registration to complete for resource: horizontalpodautoscalers.autoscaling, last seen error: <nil>';

let etcd: Etcd;
let servers: TestServer[] = [];
let ports: number[] = [];

const args = (replica: number, hpaVersion: string) => [
  '--storage=etcd',
  `--etcd-servers=${etcd.endpoint}`,
  `--hostname-override=replica-${replica + 1}`,
  `--storage-version=autoscaling/horizontalpodautoscalers=${hpaVersion}`,
  '--identity-lease-duration-seconds=6',
  '--identity-lease-renew-interval-seconds=1',
];

function admin(server: TestServer): RestClient {
  return new RestClient(loadKubeconfig(server.kubeconfig));
}

async function getStorageVersion(client: RestClient): Promise<StorageVersionObject> {
  return client.request<StorageVersionObject>({
    method: 'GET',
    path: `/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/${HPA_SV}`,
  });
}

const hpa = (name: string) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, maxReplicas: 3 },
});

/**
 * Creates HPAs through `client` every 10 ms until one is created (60 s at most), recording each answer;
 * a refused connection (the replica does not listen yet) is retried without being recorded.
 */
async function writeUntilAccepted(client: RestClient, prefix: string, answers: Array<{ code: number; message: string }>): Promise<void> {
  for (let attempt = 0, deadline = Date.now() + 60_000; Date.now() < deadline; attempt++) {
    const response = await client
      .raw({ method: 'POST', path: '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', body: hpa(`${prefix}-${attempt}`) })
      .catch(() => undefined);
    if (response) {
      const body = JSON.parse(response.body.toString() || '{}') as { message?: string };
      answers.push({ code: response.statusCode, message: body.message ?? '' });
      if (response.statusCode === 201) return;
    }
    await sleep(10);
  }
}

beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  ({ servers, ports } = await startReplicas(3, (replica) => args(replica, 'autoscaling/v1')));
});

afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => undefined);
  await etcd?.stop();
});

describe('HA apiservers agree on storage versions (KEP-1965, KEP-2339)', () => {
  it('each replica holds an identity lease with upstream name and labels', async () => {
    const client = admin(servers[0] as TestServer);
    const leases = new ResourceClient<Lease>(client, {
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      namespaced: true,
    });
    const list = await until('three identity leases', async () => {
      const result = await leases.list('kube-system', {
        labelSelector: 'apiserver.kubernetes.io/identity=kube-apiserver',
      });
      return result.items.length === 3 ? result : undefined;
    });
    const expected = [1, 2, 3].map((n) => apiserverIdentity(`replica-${n}`)).sort();
    expect(list.items.map((lease) => lease.metadata.name).sort()).toEqual(expected);
    for (const lease of list.items) {
      expect(lease.metadata.labels?.['kubernetes.io/hostname']).toMatch(/^replica-[123]$/);
      expect(lease.spec?.holderIdentity).toMatch(new RegExp(`^${lease.metadata.name}_[0-9a-f-]{36}$`));
      expect(lease.spec?.leaseDurationSeconds).toBe(6);
    }
    client.close();
  });

  it('rolls the HPA storage version from autoscaling/v1 to autoscaling/v2', async () => {
    const observer = admin(servers[0] as TestServer);
    const initial = await until('three entries in v1', async () => {
      const sv = await getStorageVersion(observer);
      return sv.status?.storageVersions?.length === 3 ? sv : undefined;
    });
    expect(initial.status?.commonEncodingVersion).toBe('autoscaling/v1');
    expect(initial.status?.conditions?.find((c) => c.type === 'AllEncodingVersionsEqual')).toMatchObject({
      status: 'True',
      reason: 'CommonEncodingVersionSet',
    });

    const barrierAnswers: Array<{ code: number; message: string }> = [];
    for (let replica = 0; replica < 3; replica++) {
      const previous = servers[replica] as TestServer;
      // The old kubeconfig names the same port and CA: this client reaches the restarted replica the moment it
      // listens, before its stdout says so, and writes to HPAs from then on: until it registered, the exact 503.
      const client = admin(previous);
      await previous.stop();
      const accepted = writeUntilAccepted(client, `r${replica}`, barrierAnswers);
      servers[replica] = await startServer({
        port: ports[replica] as number,
        args: args(replica, 'autoscaling/v2'),
        dataDir: previous.dataDir,
        keepDataDir: true,
        waitReady: false,
      });
      const restarted = servers[replica] as TestServer;
      await accepted;
      client.close();
      if (replica < 2) {
        const mixed = await until('mixed versions with the common version unset', async () => {
          const sv = await getStorageVersion(admin(restarted));
          const versions = new Set(sv.status?.storageVersions?.map((entry) => entry.encodingVersion));
          return versions.size === 2 ? sv : undefined;
        });
        expect(mixed.status?.commonEncodingVersion).toBeUndefined();
        expect(mixed.status?.conditions?.find((c) => c.type === 'AllEncodingVersionsEqual')).toMatchObject({
          status: 'False',
          reason: 'CommonEncodingVersionUnset',
          message: 'Common encoding version unset',
        });
      }
    }
    // After the last registration the common version is v2 (the updater runs before readyz turns ready).
    const final = await until(
      'common version autoscaling/v2',
      async () => {
        const sv = await getStorageVersion(observer);
        return sv.status?.commonEncodingVersion === 'autoscaling/v2' ? sv : undefined;
      },
      1_000,
    );
    expect(final.status?.storageVersions?.map((entry) => entry.encodingVersion)).toEqual([
      'autoscaling/v2',
      'autoscaling/v2',
      'autoscaling/v2',
    ]);
    // Every refusal was exactly the upstream 503; each restarted replica finally accepted the write.
    for (const answer of barrierAnswers.filter((a) => a.code !== 201)) {
      expect(answer).toEqual({ code: 503, message: BARRIER_MESSAGE });
    }
    expect(barrierAnswers.filter((a) => a.code === 201)).toHaveLength(3);
    expect(barrierAnswers.filter((a) => a.code === 503).length).toBeGreaterThan(0);
    console.log(
      `[ha] writes refused by the barrier before registration: ${barrierAnswers.filter((a) => a.code === 503).length}`,
    );
    observer.close();
  });

  it('a SIGKILLed replica disappears from the StorageVersion once its lease expires; one GC leader acts', async () => {
    const victim = servers[2] as TestServer;
    const victimID = apiserverIdentity('replica-3');
    const observer = admin(servers[0] as TestServer);
    const leases = new ResourceClient<Lease>(observer, {
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      namespaced: true,
    });
    await victim.kill();
    // Renewals stop with the process: the lease expires leaseDurationSeconds after its last renewTime.
    const victimLease = await leases.get('kube-system', victimID);
    const expiresAt = Date.parse(victimLease.spec?.renewTime ?? '') + (victimLease.spec?.leaseDurationSeconds ?? 0) * 1000;
    const pruned = await until(
      'entries without the killed replica',
      async () => {
        const sv = await getStorageVersion(observer);
        const ids = sv.status?.storageVersions?.map((entry) => entry.apiServerID) ?? [];
        return ids.length === 2 && !ids.includes(victimID) ? sv : undefined;
      },
      45_000,
    );
    // The entry outlived the killed process until its lease expired.
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(pruned.status?.commonEncodingVersion).toBe('autoscaling/v2');
    const leader = await leases.get('kube-system', 'storage-version-garbage-collector');
    const live = [apiserverIdentity('replica-1'), apiserverIdentity('replica-2')];
    expect(live).toContain(leader.spec?.holderIdentity);
    // Exactly one replica, the GC leader, removed the entry.
    const removal = `storage version GC: removed ${victimID} from ${HPA_SV}`;
    const removers = servers.slice(0, 2).filter((server) => server.output().includes(removal));
    expect(removers).toHaveLength(1);
    expect(live[servers.indexOf(removers[0] as TestServer)]).toBe(leader.spec?.holderIdentity);
    observer.close();
  });
});
