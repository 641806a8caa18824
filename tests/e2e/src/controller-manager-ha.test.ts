import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '@kapi/client';
import { apiserverIdentity } from '@kapi/identity';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { kubectl, startReplicas, type TestServer, until } from './harness.js';

/**
 * Two replicas of kube-apiserver-lite on one etcd run the controllers (namespace, garbage collector,
 * service accounts, cluster role aggregation) on one of them at a time, under the
 * `kube-system/kube-controller-manager` lease, as an HA set of kube-controller-managers does; when the
 * leader stops, the other takes over.
 */
type Etcd = Awaited<ReturnType<typeof startEtcd>>;

let etcd: Etcd;
let servers: TestServer[] = [];
const identities = [apiserverIdentity('replica-1'), apiserverIdentity('replica-2')];

beforeAll(async () => {
  etcd = await startEtcd();
  ({ servers } = await startReplicas(2, (replica) => [
    '--storage=etcd',
    `--etcd-servers=${etcd.endpoint}`,
    `--hostname-override=replica-${replica + 1}`,
  ]));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop().catch(() => undefined)));
  await etcd?.stop();
});

async function holder(server: TestServer): Promise<string> {
  const out = await kubectl(server, ['get', 'lease', 'kube-controller-manager', '-n', 'kube-system', '-o', 'json']);
  return (JSON.parse(out) as Lease).spec?.holderIdentity ?? '';
}

/** `leader_election_master_status` and `garbage_collector_graph_objects` as the server's /metrics has them. */
async function metrics(server: TestServer): Promise<{ leading: number | undefined; graph: number | undefined }> {
  const text = (await server.client().raw({ method: 'GET', path: '/metrics' })).body.toString();
  const value = (pattern: RegExp) => {
    const match = pattern.exec(text);
    return match ? Number(match[1]) : undefined;
  };
  return {
    leading: value(/^leader_election_master_status\{name="kube-controller-manager"\} (\d+)$/m),
    graph: value(/^garbage_collector_graph_objects (\d+)$/m),
  };
}

/** Whether the object exists, read with kubectl through `server`. */
async function exists(server: TestServer, args: string[]): Promise<boolean> {
  return (await kubectl(server, ['get', ...args, '--ignore-not-found', '-o', 'name'])).trim() !== '';
}

describe('kube-controller-manager lease across two replicas', () => {
  it('runs the controllers on the lease holder only, and moves them when it stops', async () => {
    const leaderId = await until('a holder of kube-system/kube-controller-manager', async () => {
      const id = await holder(servers[0]!);
      return identities.includes(id) ? id : undefined;
    }, 40_000);
    const leaderIndex = identities.indexOf(leaderId);
    const leader = servers[leaderIndex]!;
    const follower = servers[1 - leaderIndex]!;
    expect(await metrics(leader)).toMatchObject({ leading: 1 });
    expect((await metrics(follower)).leading).toBe(0);

    // Written through the follower, collected by the leader's garbage collector.
    const owner = JSON.parse(
      await kubectl(follower, ['create', 'configmap', 'ha-owner', '-o', 'json']),
    ) as { metadata: { uid: string } };
    const dependent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ha-dependent', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ha-owner', uid: owner.metadata.uid }] },
    };
    await kubectl(follower, ['create', '-f', '-'], JSON.stringify(dependent));
    await until('the leader to graph the owned object', async () => ((await metrics(leader)).graph ?? 0) > 0 || undefined);
    // The follower runs no collector: its graph is empty (or absent) while the leader's holds the object.
    expect((await metrics(follower)).graph ?? 0).toBe(0);
    await kubectl(follower, ['delete', 'configmap', 'ha-owner']);
    await until('the dependent to be collected', async () => !(await exists(follower, ['configmap', 'ha-dependent'])) || undefined);

    // The leader stops (releasing the lease): the follower takes the controllers over.
    await leader.stop();
    servers = [follower];
    await until('the follower to hold the lease', async () => ((await holder(follower)) === identities[1 - leaderIndex] ? true : undefined));
    expect((await metrics(follower)).leading).toBe(1);
    await kubectl(follower, ['create', 'namespace', 'ha-after-failover']);
    await until('the default ServiceAccount from the new leader', async () => (await exists(follower, ['serviceaccount', 'default', '-n', 'ha-after-failover'])) || undefined);
    await kubectl(follower, ['delete', 'namespace', 'ha-after-failover', '--wait=false']);
    await until('the namespace to be finalized by the new leader', async () => !(await exists(follower, ['namespace', 'ha-after-failover'])) || undefined);
  }, 180_000);
});
