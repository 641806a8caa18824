import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageVersionHash, type KubeList } from '@kapi/apimachinery';
import { RestClient, loadKubeconfig, sleep } from '@kapi/client';
import { TRIGGER_ENCODING_VERSION_ANNOTATION, type StorageState, type StorageVersionMigration } from '@kapi/migrator';
import { startEtcd, type EtcdInstance } from '@kapi/storage-etcd3/testing';
import { startReplicas, startServer, type TestServer, until } from './harness.js';

const hpaCount = 60;
let etcd: EtcdInstance;
let raw: Etcd3;
let servers: TestServer[] = [];
let ports: number[] = [];

const args = (replica: number, hpaVersion: string) => [
  '--storage=etcd',
  `--etcd-servers=${etcd.endpoint}`,
  `--hostname-override=migrator-replica-${replica + 1}`,
  `--storage-version=autoscaling/horizontalpodautoscalers=${hpaVersion}`,
  '--identity-lease-duration-seconds=6',
  '--identity-lease-renew-interval-seconds=1',
];

const client = (server: TestServer) => new RestClient(loadKubeconfig(server.kubeconfig));

async function migrations(api: RestClient): Promise<StorageVersionMigration[]> {
  const list = await api.request<KubeList<StorageVersionMigration>>({
    method: 'GET',
    path: '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations',
  });
  return list.items.filter((item) => item.spec?.resource?.resource === 'horizontalpodautoscalers');
}

const storageState = (api: RestClient) =>
  api.request<StorageState>({ method: 'GET', path: '/apis/migration.k8s.io/v1alpha1/storagestates/horizontalpodautoscalers.autoscaling' });

async function rawApiVersions(): Promise<string[]> {
  const values = await raw.getAll().prefix('/registry/horizontalpodautoscalers/').buffers();
  return Object.values(values).map((value) => (JSON.parse(value.toString()) as { apiVersion: string }).apiVersion);
}

async function restart(replica: number, hpaVersion: string): Promise<void> {
  const old = servers[replica] as TestServer;
  await old.stop();
  servers[replica] = await startServer({ port: ports[replica] as number, args: args(replica, hpaVersion), dataDir: old.dataDir, keepDataDir: true });
}

beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  raw = new Etcd3({ hosts: etcd.endpoint });
  ({ servers, ports } = await startReplicas(2, (replica) => args(replica, 'autoscaling/v1')));
});

afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => undefined);
  raw?.close();
  await etcd?.stop();
});

describe('the migration trigger follows StorageVersion.commonEncodingVersion (KEP-2339)', () => {
  it('migrates HPAs to autoscaling/v2 only once every replica encodes autoscaling/v2', async () => {
    const api = client(servers[1] as TestServer);
    for (let index = 0; index < hpaCount; index++) {
      await api.request({
        method: 'POST',
        path: '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers',
        body: {
          apiVersion: 'autoscaling/v1',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: `hpa-${index}` },
          spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `d-${index}` }, maxReplicas: 3 },
        },
      });
    }
    expect(new Set(await rawApiVersions())).toEqual(new Set(['autoscaling/v1']));
    const v1Hash = storageVersionHash('autoscaling', 'v1', 'HorizontalPodAutoscaler');
    const v2Hash = storageVersionHash('autoscaling', 'v2', 'HorizontalPodAutoscaler');
    // The first StorageState starts at ["Unknown"]: the trigger migrates once to learn the stored version.
    await until('StorageState persisted [v1]', async () => {
      const state = await storageState(api);
      return JSON.stringify(state.status?.persistedStorageVersionHashes) === JSON.stringify([v1Hash]) ? state : undefined;
    }, 60_000);

    await restart(0, 'autoscaling/v2');
    const skewed = client(servers[0] as TestServer);
    await until('no common encoding version', async () => {
      const sv = await skewed.request<{ status?: { commonEncodingVersion?: string; storageVersions?: unknown[] } }>({
        method: 'GET',
        path: '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/autoscaling.horizontalpodautoscalers',
      });
      return sv.status?.storageVersions?.length === 2 && sv.status.commonEncodingVersion === undefined ? sv : undefined;
    }, 60_000);
    await sleep(3000);
    const duringSkew = await migrations(skewed);
    expect(duringSkew.filter((m) => m.metadata.annotations?.[TRIGGER_ENCODING_VERSION_ANNOTATION] === 'autoscaling/v2')).toEqual([]);
    expect(new Set(await rawApiVersions())).toEqual(new Set(['autoscaling/v1']));
    skewed.close();

    await restart(1, 'autoscaling/v2');
    const after = client(servers[1] as TestServer);
    const state = await until('StorageState persisted [v2]', async () => {
      const current = await storageState(after);
      return JSON.stringify(current.status?.persistedStorageVersionHashes) === JSON.stringify([v2Hash]) ? current : undefined;
    }, 90_000);
    expect(state.status?.currentStorageVersionHash).toBe(v2Hash);
    const versions = await rawApiVersions();
    expect(versions).toHaveLength(hpaCount);
    expect(new Set(versions)).toEqual(new Set(['autoscaling/v2']));
    const v2Migrations = (await migrations(after)).filter(
      (m) => m.metadata.annotations?.[TRIGGER_ENCODING_VERSION_ANNOTATION] === 'autoscaling/v2',
    );
    expect(v2Migrations.length).toBeGreaterThan(0);
    expect(v2Migrations.every((m) => m.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True'))).toBe(true);

    // The leader's /metrics counts the migration (whichever replica leads now).
    let metrics = '';
    for (const server of servers) {
      const scraper = client(server);
      metrics += (await scraper.raw({ method: 'GET', path: '/metrics' })).body.toString();
      scraper.close();
    }
    const labels = 'group="autoscaling",resource="horizontalpodautoscalers"';
    expect(metrics).toMatch(new RegExp(`storage_migrator_migrations_total\\{${labels},status="Succeeded"\\} [1-9]`));
    const migrated = new RegExp(`storage_migrator_migrated_objects_total\\{${labels}\\} (\\d+)`).exec(metrics);
    // At least every HPA once (the trigger migrates again when the StorageVersion moved meanwhile).
    expect(Number(migrated?.[1])).toBeGreaterThanOrEqual(hpaCount);
    expect(metrics).toContain(`storage_migrator_remaining_objects{${labels}} 0`);
    after.close();
    api.close();
  });
});
