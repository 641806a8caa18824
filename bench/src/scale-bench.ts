import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@kapi/apimachinery';
import { Store, type KVBackend, type Watch } from '@kapi/storage';
import { Etcd3Backend } from '@kapi/storage-etcd3';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { Cacher } from '@kapi/watch-cache';
import { measureMs, measureRate, percentile, row, sampleObject, usedMemory, type BenchRow } from './harness.js';
import { scaleHttpRows } from './scale-http-bench.js';

const prefix = '/registry/configmaps';
const namespaces = 100;

const objectKey = (i: number) => `${prefix}/ns-${i % namespaces}/o${String(i).padStart(6, '0')}`;

/** Every page of a `limit` 500 LIST of the whole resource; returns the item count. */
async function pagedList(read: Store | Cacher, resourceVersion: string): Promise<number> {
  let token: string | undefined;
  let count = 0;
  let first = true;
  do {
    const page = await read.getList(`${prefix}/`, {
      recursive: true,
      ...(first ? { resourceVersion, ...(resourceVersion !== '' ? { resourceVersionMatch: 'NotOlderThan' as const } : {}) } : {}),
      predicate: { limit: 500, ...(token ? { continue: token } : {}) },
    });
    count += page.items.length;
    token = page.continue;
    first = false;
  } while (token);
  return count;
}

/** Every object, read as the cache lists them: pages of 10,000 at the first page's revision. */
async function readAll(store: Store): Promise<number> {
  let token: string | undefined;
  let count = 0;
  do {
    const page = await store.getList(`${prefix}/`, { recursive: true, predicate: { limit: 10_000, ...(token ? { continue: token } : {}) } });
    count += page.items.length;
    token = page.continue;
  } while (token);
  return count;
}

/** Opens a connection to the backend the scale point runs on (each call a new one, as a restarted server's). */
type OpenBackend = () => Promise<KVBackend>;

/**
 * The scale point at the storage Interface (Cacher over Store over `backend`): `count` x 2 KB ConfigMaps
 * across 100 namespaces written through one connection (Store.create, 256 in flight); then, on a new
 * connection, cold start of the cache beside a full read of the storage; memory of the full cache beside
 * the objects' serialized size; a paged LIST (limit 500) whose first page comes from the cache beside one
 * read wholly from the storage; the memory of idle cache watches; and a namespace LIST's p99 with them open.
 */
async function storageRows(backend: string, open: OpenBackend, options: { quick: boolean; count: number }): Promise<BenchRow[]> {
  const { count } = options;
  const size = options.quick ? `${count / 1000}k (--quick; full run 100k)` : `${count / 1000}k`;
  const rows: BenchRow[] = [];
  console.log(`[bench] scale: filling ${count} objects (${backend})`);
  const filler = await open();
  const fillStore = new Store({ kv: filler });
  let serializedBytes = 0;
  const fillRate = await measureRate(count, 256, async (i) => {
    const object = { ...sampleObject(`o${String(i).padStart(6, '0')}`), metadata: { name: `o${String(i).padStart(6, '0')}`, namespace: `ns-${i % namespaces}` } };
    const created = await fillStore.create(objectKey(i), object as KubeObject);
    serializedBytes += Buffer.byteLength(JSON.stringify(created));
  });
  await filler.close();

  const kv = await open();
  const store = new Store({ kv });
  const storeReadMs = await measureMs(() => readAll(store));
  const before = await usedMemory();
  const cacher = new Cacher({ storage: new Store({ kv }), resourcePrefix: prefix });
  const watches: Watch[] = [];
  try {
    const coldMs = await measureMs(() => cacher.start());
    rows.push({
      ...row(`cold start of the watch cache, ${size} x 2 KB (${backend})`, 'Cacher.start (LIST + history)', coldMs, 'Store.getList of everything, 10,000 a page', storeReadMs, 'ms (lower is better)', '<= 10 s'),
      notes: `filled at ${fillRate.toFixed(0)} creates/s (Store, 256 in flight); every create is still in the log (never compacted): the cache is filled by one replay of the log, state and history together, not listed`,
    });
    const cached = (await usedMemory()) - before;
    rows.push({
      ...row(`memory of the full cache, ${size} x 2 KB (${backend})`, 'heap + external growth', cached, 'serialized JSON size', serializedBytes, 'bytes (lower is better)', '<= 150% + base'),
      notes: `RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB after filling the cache`,
    });

    const revision = (await cacher.getList(`${prefix}/`, { recursive: true, resourceVersion: '0' })).resourceVersion;
    let listed = 0;
    const cachePagedMs = await measureMs(async () => (listed = await pagedList(cacher, revision)));
    const storePagedMs = await measureMs(() => pagedList(store, ''));
    if (listed !== count) throw new Error(`paged LIST returned ${listed} of ${count} objects`);
    rows.push({
      ...row(`paged LIST of ${size} (limit 500, ${backend})`, 'first page from the cache (RV=N NotOlderThan)', count / (cachePagedMs / 1000), 'every page from the storage (RV="")', count / (storePagedMs / 1000), 'objects/s'),
      notes: 'pages after the first are read by the storage in both (continue tokens are exact reads: no cache snapshots)',
    });

    const idleBefore = await usedMemory();
    const idle = options.quick ? 2000 : 10_000;
    for (let i = 0; i < idle; i++) watches.push(await cacher.watch(`${prefix}/ns-${i % namespaces}/`, { recursive: true, resourceVersion: revision }));
    const perWatch = ((await usedMemory()) - idleBefore) / idle;
    rows.push(row(`memory per idle cache watch (${idle} watches, ${backend})`, 'Cacher.watch', perWatch, 'target', 4096, 'bytes (lower is better)', '<= 4 KB'));

    const samples = options.quick ? 200 : 1000;
    const namespaceList = (read: Store | Cacher, resourceVersion: string) => async () => {
      const times: number[] = [];
      for (let i = 0; i < samples; i++) times.push(await measureMs(() => read.getList(`${prefix}/ns-${i % namespaces}/`, { recursive: true, resourceVersion })));
      return percentile(times, 99);
    };
    const cacheP99 = await namespaceList(cacher, '0')();
    const storeP99 = await namespaceList(store, '')();
    rows.push(row(`namespace LIST (${count / namespaces} objects) p99, ${watches.length} watches open (${backend})`, 'Cacher RV=0', cacheP99, 'Store RV=""', storeP99, 'ms (lower is better)', '<= 5 ms'));
  } finally {
    for (const watch of watches) watch.stop();
    await cacher.stop();
    await kv.close();
  }
  return rows;
}

/**
 * The scale point (issue 17): `count` x 2 KB ConfigMaps in 100 namespaces (100k, 10k with --quick), at
 * the storage Interface on SQLite and on etcd ({@link storageRows}), then over HTTP on kube-apiserver-lite
 * with SQLite ({@link scaleHttpRows}).
 */
export async function scaleBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const count = options.quick ? 10_000 : 100_000;
  const rows: BenchRow[] = [];
  const directory = mkdtempSync(join(tmpdir(), 'kapi-scale-bench-'));
  try {
    const path = join(directory, 'scale.db');
    rows.push(...(await storageRows('SQLite', () => SqliteBackend.open({ path }), { quick: options.quick, count })));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  try {
    rows.push(...(await storageRows('etcd', () => Etcd3Backend.connect({ endpoints: [etcd.endpoint] }), { quick: options.quick, count })));
  } finally {
    await etcd.stop();
  }
  try {
    rows.push(...(await scaleHttpRows({ count, idleWatches: options.quick ? 2000 : 10_000, samples: options.quick ? 300 : 1000 })));
  } catch (error) {
    // The storage rows stay in the table; the FAILED row makes the run exit non-zero.
    console.error('[bench] scale over HTTP failed:', error);
    rows.push({ scenario: 'scale point over HTTP', subject: 'FAILED', control: '', unit: '', subjectValue: Number.NaN, controlValue: Number.NaN, ratio: Number.NaN, notes: String(error instanceof Error ? error.message : error) });
  }
  return rows;
}
