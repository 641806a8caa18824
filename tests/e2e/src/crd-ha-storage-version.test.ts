import { RestClient, loadKubeconfig, sleep } from '@kapi/client';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { Etcd3 } from 'etcd3';
import { afterAll, describe, expect, it } from 'vitest';
import { customResourceDefinition } from './crd-fixtures.js';
import { kubectl, startReplicas, type TestServer } from './harness.js';

const group = 'ha.example.com';

interface StorageVersionObject {
  status?: {
    storageVersions?: Array<{ apiServerID: string; encodingVersion: string }>;
    commonEncodingVersion?: string;
  };
}

/** A two-version CRD storing `storage`. */
const crd = (storage: string) => JSON.stringify(customResourceDefinition({ group, kind: 'Gadget', versions: ['v1', 'v2'], storage }));

/** Polls the StorageVersion until both replicas report `encoding` and the common encoding version follows. */
async function agreed(client: RestClient, encoding: string): Promise<StorageVersionObject> {
  let last: StorageVersionObject = {};
  for (let attempt = 0; attempt < 300; attempt++) {
    last = await client
      .request<StorageVersionObject>({ method: 'GET', path: `/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/${group}.gadgets` })
      .catch(() => ({}));
    const entries = last.status?.storageVersions ?? [];
    if (entries.length === 2 && entries.every((entry) => entry.encodingVersion === encoding) && last.status?.commonEncodingVersion === encoding) return last;
    await sleep(100);
  }
  return last;
}

describe('two replicas on one etcd agree on a CRD\'s storage version', () => {
  let etcd: Awaited<ReturnType<typeof startEtcd>> | undefined;
  let servers: TestServer[] = [];

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await etcd?.stop();
  });

  it('publishes both replicas\' encoding version and follows a storage-version switch', async () => {
    etcd = await startEtcd();
    const endpoint = etcd.endpoint;
    ({ servers } = await startReplicas(2, (replica) => ['--storage=etcd', `--etcd-servers=${endpoint}`, `--hostname-override=crd-replica-${replica + 1}`, '--storage-version-migrator=false']));
    const [first, second] = servers as [TestServer, TestServer];
    const client = new RestClient(loadKubeconfig(second.kubeconfig));
    try {
      await kubectl(first, ['apply', '-f', '-'], crd('v1'));
      await kubectl(second, ['wait', '--for=condition=Established', `crd/gadgets.${group}`, '--timeout=30s']);
      const v1 = await agreed(client, `${group}/v1`);
      expect(v1.status?.storageVersions?.map((entry) => entry.encodingVersion)).toEqual([`${group}/v1`, `${group}/v1`]);
      expect(v1.status?.commonEncodingVersion).toBe(`${group}/v1`);

      await kubectl(first, ['apply', '-f', '-'], crd('v2'));
      const v2 = await agreed(client, `${group}/v2`);
      expect(v2.status?.storageVersions?.map((entry) => entry.encodingVersion)).toEqual([`${group}/v2`, `${group}/v2`]);
      expect(v2.status?.commonEncodingVersion).toBe(`${group}/v2`);
      // A v1 write through the other replica is stored at the agreed version.
      const gadget = JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { size: 1 } });
      await kubectl(second, ['create', '-f', '-'], gadget);
      const kv = new Etcd3({ hosts: endpoint });
      const raw = await kv.get(`/registry/${group}/gadgets/default/g`).string();
      kv.close();
      expect(JSON.parse(raw ?? '{}')).toMatchObject({ apiVersion: `${group}/v2`, kind: 'Gadget' });
      const stored = await kubectl(first, ['get', 'crd', `gadgets.${group}`, '-o', 'jsonpath={.status.storedVersions}']);
      expect(JSON.parse(stored)).toEqual(['v1', 'v2']);
    } finally {
      client.close();
    }
  });
});
