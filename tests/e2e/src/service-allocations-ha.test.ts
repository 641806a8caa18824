import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { startReplicas, type TestServer } from './harness.js';

/**
 * Two replicas of kube-apiserver-lite on one etcd hand out cluster IPs and node ports from the same
 * small ranges while creates race on both: every Service gets its own values, and a full range is
 * refused by whichever replica the request reaches.
 */
type Etcd = Awaited<ReturnType<typeof startEtcd>>;

let etcd: Etcd;
let servers: TestServer[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
  ({ servers } = await startReplicas(2, (replica) => [
    '--storage=etcd',
    `--etcd-servers=${etcd.endpoint}`,
    `--hostname-override=replica-${replica + 1}`,
    '--service-cluster-ip-range=10.97.0.0/27',
    '--service-node-port-range=32000-32039',
  ]));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop().catch(() => undefined)));
  await etcd?.stop();
});

interface Created {
  code: number;
  body: { spec?: { clusterIP?: string; ports?: Array<{ nodePort?: number }> }; message?: string };
}

async function create(server: TestServer, name: string): Promise<Created> {
  const response = await server.client().raw({
    method: 'POST',
    path: '/api/v1/namespaces/default/services',
    body: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec: { type: 'NodePort', ports: [{ port: 80 }] },
    },
  });
  return { code: response.statusCode, body: JSON.parse(response.body.toString()) as Created['body'] };
}

describe('Service allocations across two replicas', () => {
  it('never hands the same cluster IP or node port to two Services, however the creates race', async () => {
    // A /27 has 30 usable addresses; the kubernetes Service holds the first.
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) => create(servers[i % 2]!, `racer-${i}`)),
    );
    const created = results.filter((result) => result.code === 201);
    const refused = results.filter((result) => result.code !== 201);
    expect(created).toHaveLength(29);
    expect(refused.map((result) => [result.code, result.body.message])).toEqual(
      Array.from({ length: 3 }, () => [
        500,
        'Internal error occurred: failed to allocate a serviceIP: range is full',
      ]),
    );
    const ips = created.map((result) => result.body.spec?.clusterIP);
    const ports = created.map((result) => result.body.spec?.ports?.[0]?.nodePort);
    expect(new Set(ips).size).toBe(29);
    expect(ips).not.toContain('10.97.0.1');
    expect(new Set(ports).size).toBe(29);
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(32000);
  });
});
