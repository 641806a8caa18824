import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@kapi/apimachinery';
import { RestClient } from '@kapi/client';
import { parseOptions, startControlPlane } from '@kapi/kube-apiserver-lite';
import { MigrationController, type StorageVersionMigration } from '@kapi/migrator';
import { Store, parseEncryptionConfiguration, providersTransformer, type KVBackend } from '@kapi/storage';
import { Etcd3Backend } from '@kapi/storage-etcd3';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { measureRate, row, sampleObject, type BenchRow } from './harness.js';

const key1 = { name: 'key1', secret: randomBytes(32).toString('base64') };
const key2 = { name: 'key2', secret: randomBytes(32).toString('base64') };
const encryption = (keys: Array<{ name: string; secret: string }>) => ({
  apiVersion: 'apiserver.config.k8s.io/v1',
  kind: 'EncryptionConfiguration',
  resources: [{ resources: ['configmaps'], providers: [{ secretbox: { keys } }] }],
});
const transformerOf = (keys: Array<{ name: string; secret: string }>) =>
  providersTransformer(parseEncryptionConfiguration(encryption(keys)).resources[0]?.providers ?? []);
const namespace = 'bench';
const path = `/api/v1/namespaces/${namespace}/configmaps`;
const migrationsPath = '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations';

/** kube-apiserver-lite in this process with configmaps encrypted by `keys` (the first writes). */
async function startServer(directory: string, storageArgs: string[], keys: Array<{ name: string; secret: string }>) {
  writeFileSync(join(directory, 'encryption.json'), JSON.stringify(encryption(keys)));
  writeFileSync(join(directory, 'tokens.csv'), 'bench-token,bench,1,"system:masters"\n');
  const running = await startControlPlane(
    parseOptions([
      ...storageArgs,
      `--data-dir=${directory}`,
      '--secure-port=0',
      `--token-auth-file=${join(directory, 'tokens.csv')}`,
      `--encryption-provider-config=${join(directory, 'encryption.json')}`,
      '--storage-version-migrator=false',
      '--max-requests-inflight=0',
      '--max-mutating-requests-inflight=0',
    ]),
  );
  const client = new RestClient({ server: running.url, token: 'bench-token', ca: readFileSync(join(directory, 'ca.crt'), 'utf8') });
  for (let attempt = 0; attempt < 300; attempt++) {
    const ready = await client.raw({ method: 'GET', path: '/readyz' }).catch(() => undefined);
    if (ready?.statusCode === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    client,
    stop: async () => {
      client.close();
      await running.stop();
    },
  };
}

/** Runs one StorageVersionMigration of configmaps to its end; objects/s and the heap growth (MB) of this process meanwhile. */
async function migrate(client: RestClient, name: string, total: number, qps: number): Promise<{ rate: number; heapGrowthMb: number }> {
  global.gc?.();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 50);
  const controller = new MigrationController({ rest: client, qps, burst: 1, pageSize: 500, writesInFlight: qps === 0 ? 16 : 1 });
  const started = process.hrtime.bigint();
  controller.start();
  try {
    await client.request({ method: 'POST', path: migrationsPath, body: { metadata: { name }, spec: { resource: { group: '', resource: 'configmaps' } } } });
    for (;;) {
      const migration = await client.request<StorageVersionMigration>({ method: 'GET', path: `${migrationsPath}/${name}` });
      const conditions = migration.status?.conditions ?? [];
      if (conditions.some((condition) => condition.type === 'Failed' && condition.status === 'True')) throw new Error(`migration ${name} failed`);
      if (conditions.some((condition) => condition.type === 'Succeeded' && condition.status === 'True')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    clearInterval(sampler);
    await controller.stop();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { rate: total / seconds, heapGrowthMb: (peak - baseline) / 2 ** 20 };
}

/** The raw control: the same rotation done by reading pages of 500 from a Store and rewriting each object (stale key: forced write), 16 at a time. */
async function rawRewriteRate(kv: KVBackend, total: number): Promise<number> {
  const prefix = '/registry/configmaps/raw-control/';
  const old = new Store({ kv, transformer: transformerOf([key1]) });
  await measureRate(total, 64, (index) => old.create(`${prefix}o${index}`, { ...sampleObject(`o${index}`), metadata: { name: `o${index}`, namespace: 'raw-control' } } as KubeObject));
  const store = new Store({ kv, transformer: transformerOf([key2, key1]) });
  const started = process.hrtime.bigint();
  let token: string | undefined;
  do {
    const page = await store.getList(prefix, { recursive: true, predicate: { limit: 500, ...(token ? { continue: token } : {}) } });
    await measureRate(page.items.length, 16, (index) => {
      const item = page.items[index] as KubeObject;
      return store.guaranteedUpdate(`${prefix}${item.metadata.name ?? ''}`, { tryUpdate: (current) => current, cachedExistingObject: item });
    });
    token = page.continue;
  } while (token);
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** p99 latency (ms) of a foreground GET + PUT loop on 4 clients for `seconds`. */
async function foregroundP99(client: RestClient, seconds: number): Promise<number> {
  const latencies: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 4 }, async (_unused, worker) => {
      const objectPath = `${path}/foreground-${worker}`;
      while (Date.now() < deadline) {
        const started = process.hrtime.bigint();
        const current = await client.request<KubeObject>({ method: 'GET', path: objectPath });
        await client.request({ method: 'PUT', path: objectPath, body: { ...current, data: { at: `${Date.now()}` } } });
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  latencies.sort((left, right) => left - right);
  return latencies[Math.floor(latencies.length * 0.99)] ?? 0;
}

/** One backend: seed, rotate the key, migrate unthrottled beside the raw control, then the throttled migration's effect on foreground latency. */
async function benchBackend(backend: string, storageArgs: string[], rawBackend: () => Promise<KVBackend>, total: number, quick: boolean): Promise<BenchRow[]> {
  const directory = mkdtempSync(join(tmpdir(), `kapi-migrator-bench-${backend}-`));
  try {
    let server = await startServer(directory, storageArgs, [key1]);
    await server.client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } });
    console.log(`[bench] migrator (${backend}): creating ${total} x 2 KB configmaps`);
    await measureRate(total, 64, (index) => server.client.request({ method: 'POST', path, body: { ...sampleObject(`o${index}`), metadata: { name: `o${index}` } } }));
    for (let worker = 0; worker < 4; worker++) {
      await server.client.request({ method: 'POST', path, body: { metadata: { name: `foreground-${worker}` }, data: { at: '0' } } });
    }
    await server.stop();
    server = await startServer(directory, storageArgs, [key2, key1]);
    console.log(`[bench] migrator (${backend}): migrating (key1 -> key2)`);
    const unthrottled = await migrate(server.client, 'rotate-unthrottled', total + 4, 0);

    // Foreground p99 with no migration, then during a 40 qps migration (which re-encrypts with key1 again).
    const seconds = quick ? 5 : 10;
    const idle = await foregroundP99(server.client, seconds);
    await server.stop();
    server = await startServer(directory, storageArgs, [key1, key2]);
    const controller = new MigrationController({ rest: server.client, qps: 40, burst: 1, writesInFlight: 1 });
    controller.start();
    await server.client.request({ method: 'POST', path: migrationsPath, body: { metadata: { name: 'rotate-40qps' }, spec: { resource: { group: '', resource: 'configmaps' } } } });
    const during = await foregroundP99(server.client, seconds);
    await controller.stop();
    await server.stop();

    const kv = await rawBackend();
    const raw = await rawRewriteRate(kv, total);
    await kv.close();
    return [
      row(`migrate ${total} x 2 KB, key rotation, unthrottled (${backend})`, 'StorageVersionMigration over HTTPS, 16 writes in flight', unthrottled.rate, 'raw Store read + rewrite, pages of 500, 16 in flight', raw, 'objects/s', backend === 'SQLite' ? '>= 2000/s' : '>= 25%'),
      { ...row(`heap growth while migrating (${backend})`, 'server + migrator process', unthrottled.heapGrowthMb, 'one page of 500 x 2 KB', (500 * 2048) / 2 ** 20, 'MB (lower is better)'), notes: 'in-process server: includes its watch cache and request buffers' },
      { ...row(`foreground GET+PUT p99, 40 qps migration (${backend})`, 'while migrating', during, 'no migration', idle, 'ms (lower is better)', '<= 110%') },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Migrator scenario: N objects (KAPI_BENCH_MIGRATOR_OBJECTS, default 10k; 2k with --quick) on SQLite and etcd. */
export async function migratorBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const total = Number(process.env.KAPI_BENCH_MIGRATOR_OBJECTS ?? (options.quick ? 2000 : 10_000));
  const rows: BenchRow[] = [];
  const rawDirectory = mkdtempSync(join(tmpdir(), 'kapi-migrator-bench-raw-'));
  try {
    rows.push(...(await benchBackend('SQLite', ['--storage=sqlite'], () => SqliteBackend.open({ path: join(rawDirectory, 'raw.db'), writerThread: true }), total, options.quick)));
    const etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
    try {
      rows.push(...(await benchBackend('etcd', ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`], () => Etcd3Backend.connect({ endpoints: [etcd.endpoint] }), total, options.quick)));
    } finally {
      await etcd.stop();
    }
  } finally {
    rmSync(rawDirectory, { recursive: true, force: true });
  }
  return rows;
}
