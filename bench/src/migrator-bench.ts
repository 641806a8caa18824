import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '@kapi/apimachinery';
import { RestClient, sleep } from '@kapi/client';
import { parseOptions, startControlPlane } from '@kapi/kube-apiserver-lite';
import type { StorageVersionMigration } from '@kapi/migrator';
import { Store, parseEncryptionConfiguration, providersTransformer, type KVBackend } from '@kapi/storage';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { Etcd3 } from 'etcd3';
import { profiled } from './cpu-profile.js';
import { etcdTarget, kvTarget, writeInterference } from './write-interference.js';
import { measureRate, row, sampleObject, usedMemory, type BenchRow } from './harness.js';
import { startMigratorProcess } from './migrator-bench-process.js';
import { foregroundP99 } from './migrator-foreground-phases.js';

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
/**
 * Object writes in flight for the unthrottled migration (the standalone migrator's --writes-in-flight) and
 * for its controls (KAPI_BENCH_MIGRATOR_IN_FLIGHT overrides it). 64 streams on the migrator's one HTTP/2
 * connection: with 16 the apiserver waited on commits and answers for about a third of the migration
 * (event loop ~67% busy at ~1,200 objects/s on SQLite; 48: ~1,700/s; 128: ~1,900/s, same machine).
 */
const unthrottledWritesInFlight = Number(process.env.KAPI_BENCH_MIGRATOR_IN_FLIGHT ?? 64);
/** The throttled migration's rate, and the foreground's (open loop: a PUT every 20 ms whatever the answers). */
const throttledQps = 40;
const foregroundIntervalMs = 20;

/** How long a (re)started server may take to become ready. */
const readyTimeoutMs = 300_000;

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
  // With 100k encrypted objects the watch cache's first list alone takes a while on a loaded machine.
  for (const deadline = Date.now() + readyTimeoutMs; ; ) {
    const ready = await client.raw({ method: 'GET', path: '/readyz' }).catch(() => undefined);
    if (ready?.statusCode === 200) break;
    if (Date.now() > deadline) throw new Error(`kube-apiserver-lite was not ready within ${readyTimeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The same user's requests served in process, as kube-apiserver-lite's own migrator sends them.
  const inProcessClient = new RestClient({ ...client.config, inProcess: (call) => running.server.serveInProcess(call) });
  return {
    client,
    inProcessClient,
    kubeconfig: running.kubeconfigPath,
    stop: async () => {
      client.close();
      inProcessClient.close();
      await running.stop();
    },
  };
}

/** Creates a StorageVersionMigration of `resource` (default configmaps); resolves when it has Succeeded. */
async function runToEnd(client: RestClient, name: string, resource = 'configmaps'): Promise<void> {
  await client.request({ method: 'POST', path: migrationsPath, body: { metadata: { name }, spec: { resource: { group: '', resource } } } });
  for (;;) {
    const migration = await client.request<StorageVersionMigration>({ method: 'GET', path: `${migrationsPath}/${name}` });
    const conditions = migration.status?.conditions ?? [];
    if (conditions.some((condition) => condition.type === 'Failed' && condition.status === 'True')) throw new Error(`migration ${name} failed`);
    if (conditions.some((condition) => condition.type === 'Succeeded' && condition.status === 'True')) return;
    await sleep(100);
  }
}

/** Secrets migrated first, so that the migrator's heap baseline is taken with its code and connections warm. */
const warmUpSecrets = 64;

/**
 * One unthrottled migration by the standalone storage-version-migrator (its own process, as an operator
 * runs it): objects/s, and that process's live heap (MB) at the start and at its peak meanwhile. The
 * process first migrates the few warm-up secrets, so that the heap growth measured is what the
 * migration's size costs, not the code compiled and the connections opened by its first page.
 */
async function migrateStandalone(server: { client: RestClient; kubeconfig: string }, name: string, total: number) {
  const migrator = await startMigratorProcess([
    `--kubeconfig=${server.kubeconfig}`,
    '--qps=0',
    `--writes-in-flight=${unthrottledWritesInFlight}`,
    '--trigger=false',
    '--leader-elect=false',
  ]);
  await Promise.race([runToEnd(server.client, `${name}-warm-up`, 'secrets'), migrator.died]);
  migrator.startSampling();
  const started = process.hrtime.bigint();
  const cpuAtStart = process.cpuUsage();
  const loopAtStart = performance.eventLoopUtilization();
  const seconds = await profiled(`migrator-apiserver-${name}`, () => Promise.race([runToEnd(server.client, name), migrator.died])).then(
    () => Number(process.hrtime.bigint() - started) / 1e9,
    (error: unknown) => error,
  );
  const serverCpu = process.cpuUsage(cpuAtStart);
  const serverLoop = performance.eventLoopUtilization(loopAtStart);
  if (typeof seconds !== 'number') {
    await migrator.stop().catch(() => undefined);
    throw seconds;
  }
  const heap = await migrator.stop();
  return {
    rate: total / seconds,
    baselineMb: heap.baseline / 2 ** 20,
    peakMb: heap.peak / 2 ** 20,
    codeGrowthMb: heap.codeGrowth / 2 ** 20,
    baselineBuffersMb: heap.baselineBuffers / 2 ** 20,
    peakBuffersMb: heap.peakBuffers / 2 ** 20,
    serverMicrosPerObject: (serverCpu.user + serverCpu.system) / total,
    migratorMicrosPerObject: heap.cpuMicros / total,
    /** How busy the apiserver's main thread (its event loop) was meanwhile, 0 to 1. */
    serverLoopUtilization: serverLoop.utilization,
  };
}

/** The SQLite control: the same rotation done by reading pages of 500 from a Store and rewriting each object (stale key: forced write), as many at a time as the migration. */
async function rawRewriteRate(kv: KVBackend, total: number): Promise<number> {
  const prefix = '/registry/configmaps/raw-control/';
  const old = new Store({ kv, transformer: transformerOf([key1]) });
  await measureRate(total, 64, (index) => old.create(`${prefix}o${index}`, { ...sampleObject(`o${index}`), metadata: { name: `o${index}`, namespace: 'raw-control' } } as KubeObject));
  const store = new Store({ kv, transformer: transformerOf([key2, key1]) });
  const started = process.hrtime.bigint();
  let token: string | undefined;
  do {
    const page = await store.getList(prefix, { recursive: true, predicate: { limit: 500, ...(token ? { continue: token } : {}) } });
    await measureRate(page.items.length, unthrottledWritesInFlight, (index) => {
      const item = page.items[index] as KubeObject;
      return store.guaranteedUpdate(`${prefix}${item.metadata.name ?? ''}`, { tryUpdate: (current) => current, cachedExistingObject: item });
    });
    token = page.continue;
  } while (token);
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * The etcd control: the raw etcd3 client's txn-put ceiling for the same objects: `total` keys of the
 * migration's value size, each rewritten by a txn (compare mod_revision, then put), as many in flight as
 * the migration.
 */
async function rawEtcdTxnPutRate(endpoint: string, total: number): Promise<number> {
  const client = new Etcd3({ hosts: endpoint });
  try {
    const prefix = `/raw-control/${Date.now()}/`;
    const value = Buffer.alloc(2048, 'x');
    // A put's header revision is the key's mod_revision.
    const revisions: string[] = [];
    await measureRate(total, 64, async (index) => {
      revisions[index] = (await client.put(`${prefix}o${index}`).value(value).exec()).header.revision;
    });
    return await measureRate(total, unthrottledWritesInFlight, async (index) => {
      const key = `${prefix}o${index}`;
      const txn = await client.if(key, 'Mod', '==', revisions[index] ?? '0').then(client.put(key).value(value)).commit();
      if (!txn.succeeded) throw new Error(`raw txn put of ${key} failed its compare`);
    });
  } finally {
    client.close();
  }
}

/**
 * One backend: seed, rotate the key, migrate unthrottled beside the raw control, then the throttled
 * migration's effect on foreground latency. Without a control, only the foreground phases (the objects
 * seeded under key2, so that the throttled migration to key1 rewrites every one).
 */
async function benchBackend(
  backend: string,
  storageArgs: string[],
  control: (() => Promise<number>) | undefined,
  total: number,
  quick: boolean,
  etcdEndpoint?: string,
  parentDir = tmpdir(),
): Promise<BenchRow[]> {
  const directory = mkdtempSync(join(parentDir, `kapi-migrator-bench-${backend.replaceAll(/\W+/g, '-')}-`));
  try {
    let server = await startServer(directory, storageArgs, control ? [key1] : [key2]);
    await server.client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } });
    console.log(`[bench] migrator (${backend}): creating ${total} x 2 KB configmaps`);
    await measureRate(total, 64, (index) => server.client.request({ method: 'POST', path, body: { ...sampleObject(`o${index}`), metadata: { name: `o${index}` } } }));
    for (let worker = 0; worker < 4; worker++) {
      await server.client.request({ method: 'POST', path, body: { metadata: { name: `foreground-${worker}` }, data: { at: '0' } } });
    }
    await measureRate(warmUpSecrets, 16, (index) =>
      server.client.request({ method: 'POST', path: `/api/v1/namespaces/${namespace}/secrets`, body: { metadata: { name: `warm-up-${index}` }, data: { key: 'dmFsdWU=' } } }),
    );
    await server.stop();
    let unthrottled: Awaited<ReturnType<typeof migrateStandalone>> | undefined;
    if (control) {
      server = await startServer(directory, storageArgs, [key2, key1]);
      console.log(`[bench] migrator (${backend}): migrating (key1 -> key2), standalone migrator, unthrottled`);
      unthrottled = await migrateStandalone(server, 'rotate-unthrottled', total + 4);
      await server.stop();
    }

    // Back to key1 at 40 qps, the foreground measured in alternating phases without and with it.
    let foreground: Awaited<ReturnType<typeof foregroundP99>> | undefined;
    if (process.env.KAPI_BENCH_MIGRATOR_FOREGROUND !== '0') {
      server = await startServer(directory, storageArgs, [key1, key2]);
      // The earlier instances ran in this process: their heap (caches, buffers) is garbage a real restart, a new
      // process, never carries. Collected now, it cannot land in a measured phase: left alone, it came back as
      // one full collection of 200-230 ms (external memory pressure) in the first phases, idle or migrating.
      await usedMemory();
      console.log(`[bench] migrator (${backend}): foreground writes with and without a ${throttledQps} qps migration`);
      foreground = await profiled(`migrator-foreground-${backend}`, () => foregroundP99(server.client, server.inProcessClient, { path, namespace, migrationsPath, throttledQps, intervalMs: foregroundIntervalMs }, quick ? 3 : 8, quick ? 4 : 8, etcdEndpoint));
      await server.stop();
    }
    // The same phases with raw writes only (the raw etcd3 client, or a raw SQLite backend in the same
    // directory): how much the migration's writes alone slow others' on this store and disk.
    const interference = foreground
      ? await writeInterference(
          etcdEndpoint ? etcdTarget(etcdEndpoint) : kvTarget(await SqliteBackend.open({ path: join(directory, 'interference.db'), writerThread: true })),
          { phases: quick ? 3 : 8, seconds: quick ? 4 : 8, intervalMs: foregroundIntervalMs, backgroundQps: throttledQps },
        )
      : undefined;

    const stallsLeftOut = (foreground?.steady.leftOut ?? 0) + (interference?.steady.leftOut ?? 0);
    const store = etcdEndpoint ? 'etcd' : 'SQLite';
    const controlRate = await control?.();
    const pageMb = (500 * 2048) / 2 ** 20;
    return [
      ...(unthrottled && controlRate !== undefined ? [{
        ...row(
          `migrate ${total} x 2 KB, key rotation, unthrottled (${backend})`,
          `standalone migrator over HTTPS, ${unthrottledWritesInFlight} writes in flight`,
          unthrottled.rate,
          backend === 'SQLite' ? `raw Store read + rewrite, pages of 500, ${unthrottledWritesInFlight} in flight` : `raw etcd3 txn put, ${unthrottledWritesInFlight} in flight`,
          controlRate,
          'objects/s',
          backend === 'SQLite' ? '>= 2000/s' : '>= 25%',
        ),
        notes:
          `CPU per object: apiserver ${unthrottled.serverMicrosPerObject.toFixed(0)} µs, migrator ${unthrottled.migratorMicrosPerObject.toFixed(0)} µs; ` +
          `apiserver event loop busy ${(unthrottled.serverLoopUtilization * 100).toFixed(0)}% of the migration`,
      },
      {
        ...row(`migrator heap growth while migrating (${backend})`, 'standalone migrator: live heap less compiled code, peak - start', unthrottled.peakMb - unthrottled.baselineMb, 'one page of 500 x 2 KB', pageMb, 'MB (lower is better)', '<= 100%'),
        notes: `live heap less V8's code spaces after a forced GC every second: ${unthrottled.baselineMb.toFixed(1)} MB at the start, peak ${unthrottled.peakMb.toFixed(1)} MB; code spaces grew ${unthrottled.codeGrowthMb.toFixed(2)} MB (functions compiled as the migration warmed up); Buffers outside the heap (the page's bytes, sockets) ${unthrottled.baselineBuffersMb.toFixed(1)} MB at the start, peak ${unthrottled.peakBuffersMb.toFixed(1)} MB`,
      }] : []),
      ...(foreground
        ? [
            {
              ...row(`foreground PUT p99, ${throttledQps} qps migration (${backend})`, 'while migrating', foreground.during, 'no migration (alternating phases)', foreground.idle, 'ms (lower is better)', '<= 110%'),
              notes: `open loop, a PUT every ${foregroundIntervalMs} ms; ${foreground.samples} samples a side; ${foreground.loop}${foreground.commits}; ${foreground.cpu}; machine stalls of >= 50 ms (an idle canary process could not run): ${foreground.stalls}`,
            },
            // Only when the canary left something out (else the row would repeat the one above).
            ...(stallsLeftOut > 0 ? [{
              ...row(`same, PUTs in flight during a machine stall left out (${backend})`, 'while migrating', foreground.steady.during, 'no migration (alternating phases)', foreground.steady.idle, 'ms (lower is better)', '<= 110%'),
              notes: `left out: ${foreground.steady.left} (in flight while an idle canary process on this VM could not run for >= 50 ms: the machine, not the server, was stopped; such stalls land in either kind of phase)`,
            }] : []),
          ]
        : []),
      ...(interference
        ? [
            {
              ...row(`${store} alone: put p99 beside ${throttledQps} qps of 2 KB conditional rewrites (${backend}; control of the row above)`, `with the ${throttledQps} qps writer`, interference.during, 'without it (alternating phases)', interference.idle, 'ms (lower is better)'),
              notes: `${etcdEndpoint ? 'raw etcd3 client (txn puts)' : 'raw SQLite backend (its writer thread, in this process)'}, no apiserver: open-loop puts every ${foregroundIntervalMs} ms, ${interference.samples} samples a side; the background writer rewrites 500 keys as a migration does. Its ratio is what the store's shared log adds to any write on this disk`,
            },
            ...(stallsLeftOut > 0 ? [{
              ...row(`${store} alone, puts in flight during a machine stall left out (${backend}; control of the row above)`, `with the ${throttledQps} qps writer`, interference.steady.during, 'without it (alternating phases)', interference.steady.idle, 'ms (lower is better)'),
              notes: `left out: ${interference.steady.left} (same canary as the subject's)`,
            }] : []),
          ]
        : []),
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * Migrator scenario: N objects (KAPI_BENCH_MIGRATOR_OBJECTS, default 10k; 2k with --quick; the issue's
 * target is stated for 100000) on SQLite and etcd, each followed by its foreground phases again with its data
 * on a tmpfs (KAPI_BENCH_MIGRATOR_BACKENDS, default `sqlite,sqlite-tmpfs,etcd,etcd-tmpfs`, picks some of them). KAPI_BENCH_MIGRATOR_FOREGROUND=0 leaves out the foreground phases (for quicker A/B runs of the
 * unthrottled migration).
 */
export async function migratorBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const total = Number(process.env.KAPI_BENCH_MIGRATOR_OBJECTS ?? (options.quick ? 2000 : 10_000));
  const backends = (process.env.KAPI_BENCH_MIGRATOR_BACKENDS ?? 'sqlite,sqlite-tmpfs,etcd,etcd-tmpfs').split(',');
  const rows: BenchRow[] = [];
  const rawDirectory = mkdtempSync(join(tmpdir(), 'kapi-migrator-bench-raw-'));
  try {
    const sqliteControl = async () => {
      const kv = await SqliteBackend.open({ path: join(rawDirectory, 'raw.db'), writerThread: true });
      try {
        return await rawRewriteRate(kv, total);
      } finally {
        await kv.close();
      }
    };
    if (backends.includes('sqlite')) rows.push(...(await benchBackend('SQLite', ['--storage=sqlite'], sqliteControl, total, options.quick)));
    // SQLite's foreground phases again with the server's data directory on a tmpfs: the database's fsyncs
    // share this VM's disk, which stalls a commit now and then (as it does etcd's below).
    if (backends.includes('sqlite-tmpfs') && existsSync('/dev/shm')) {
      rows.push(...(await benchBackend('SQLite, data on tmpfs', ['--storage=sqlite'], undefined, total, options.quick, undefined, '/dev/shm')));
    }
    if (backends.includes('etcd')) {
      const etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
      try {
        rows.push(...(await benchBackend('etcd', ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`], () => rawEtcdTxnPutRate(etcd.endpoint, total), total, options.quick, etcd.endpoint)));
      } finally {
        await etcd.stop();
      }
    }
    // The foreground phases again with etcd's data (WAL and bbolt) on a tmpfs: this VM's disk stalls a commit
    // for 100-350 ms now and then, in either kind of phase and under etcd alone too, which decides a p99 of a
    // few thousand samples. Without the disk, what is left is what the migration itself adds.
    if (backends.includes('etcd-tmpfs') && existsSync('/dev/shm')) {
      const etcd = await startEtcd({ progressNotifyIntervalMs: 1000, parentDir: '/dev/shm' });
      try {
        rows.push(...(await benchBackend('etcd, data on tmpfs', ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`], undefined, total, options.quick, etcd.endpoint)));
      } finally {
        await etcd.stop();
      }
    }
  } finally {
    rmSync(rawDirectory, { recursive: true, force: true });
  }
  return rows;
}
