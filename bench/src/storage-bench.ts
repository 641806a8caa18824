import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import type { KubeObject } from '@kapi/apimachinery';
import { Store, type KVBackend } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { Etcd3Backend } from '@kapi/storage-etcd3';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { alternate, measureMs, measureRate, row, sampleObject, type BenchRow } from './harness.js';

const encoder = new TextEncoder();
const bytes = (name: string) => encoder.encode(JSON.stringify(sampleObject(name)));

/** Store create rate beside the raw backend's create rate, measured alternately (best of two each). */
async function createRows(label: string, newKV: () => Promise<KVBackend>, total: number, target64?: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const concurrency of [1, 64]) {
    const kv = await newKV();
    const store = new Store({ kv });
    let pass = 0;
    const run = () => `${label}-${concurrency}-${Date.now()}-${pass++}`;
    // The raw backend stores bytes the caller already has: encode once, outside the measurement.
    const value = bytes('o');
    const { control: raw, subject } = await alternate(
      () => {
        const id = run();
        return measureRate(total, concurrency, (i) => kv.create(`/raw/${id}/${i}`, value));
      },
      () => {
        const id = run();
        return measureRate(total, concurrency, (i) => store.create(`/registry/configmaps/bench/${id}-${i}`, sampleObject(`o${i}`) as KubeObject));
      },
    );
    rows.push(row(`create x${total}, ${concurrency} in flight`, `Store(${label})`, subject, `raw ${label} backend`, raw, 'writes/s', concurrency === 64 ? target64 : undefined));
    await kv.close();
  }
  return rows;
}

/** guaranteedUpdate beside a raw compare-and-swap update on the same backend. */
async function updateRows(label: string, newKV: () => Promise<KVBackend>, total: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const concurrency of [1, 64]) {
    const kv = await newKV();
    const store = new Store({ kv });
    const run = `${label}-u${concurrency}-${Date.now()}`;
    const keys = Array.from({ length: concurrency }, (_, i) => `/registry/configmaps/bench/${run}-${i}`);
    for (const key of keys) await store.create(key, sampleObject(key) as KubeObject);
    const rawKeys = Array.from({ length: concurrency }, (_, i) => `/raw/${run}/${i}`);
    const revisions = new Map<string, number>();
    for (const key of rawKeys) {
      const result = await kv.create(key, bytes(key));
      if (result.succeeded) revisions.set(key, result.revision);
    }
    let counter = 0;
    const rawRun = () => measureRate(total, concurrency, async (i) => {
      const key = rawKeys[i % concurrency] as string;
      for (;;) {
        const result = await kv.update(key, bytes(`${key}-${counter++}`), revisions.get(key) ?? 0);
        if (result.succeeded) {
          revisions.set(key, result.revision);
          return;
        }
        revisions.set(key, result.current?.modRevision ?? 0);
      }
    });
    const subjectRun = () =>
      measureRate(total, concurrency, (i) =>
        store.guaranteedUpdate(keys[i % concurrency] as string, {
          tryUpdate: (current) => ({ ...current, data: { payload: `${'y'.repeat(2000)}${counter++}` } }),
        }),
      );
    const { control: raw, subject } = await alternate(rawRun, subjectRun);
    rows.push(row(`guaranteedUpdate x${total}, ${concurrency} in flight`, `Store(${label})`, subject, `raw ${label} CAS update`, raw, 'writes/s'));
    await kv.close();
  }
  return rows;
}

/** A paged LIST of 10k x 2 KB through the Store beside raw paged ranges. */
async function listRow(label: string, kv: KVBackend, count: number): Promise<BenchRow> {
  const store = new Store({ kv });
  const prefix = `/registry/listbench-${Date.now()}/`;
  await measureRate(count, 64, (i) => store.create(`${prefix}bench/o${String(i).padStart(6, '0')}`, sampleObject(`o${i}`) as KubeObject));
  const rawRun = () =>
    measureMs(async () => {
      let startKey: string | undefined;
      for (;;) {
        const page = await kv.range({ key: prefix, prefix: true, limit: 500, ...(startKey ? { startKey } : {}) });
        if (!page.more) break;
        startKey = `${page.entries[page.entries.length - 1]?.key}\u0000`;
      }
    });
  const storeRun = () =>
    measureMs(async () => {
      let token: string | undefined;
      do {
        const page = await store.getList(prefix, { recursive: true, predicate: { limit: 500, ...(token ? { continue: token } : {}) } });
        token = page.continue;
      } while (token);
    });
  const { control: rawMs, subject: storeMs } = await alternate(rawRun, storeRun, (a, b) => a < b);
  return row(`paged LIST ${count} x 2 KB (limit 500)`, `Store(${label})`, count / (storeMs / 1000), `raw ${label} range`, count / (rawMs / 1000), 'objects/s');
}

/** Watch delivery to N watchers beside the raw backend watch. */
async function watchRow(label: string, kv: KVBackend, watchers: number, events: number): Promise<BenchRow> {
  const store = new Store({ kv });
  const prefix = `/registry/watchbench-${label}-${watchers}-${Date.now()}/`;
  const start = (await kv.currentRevision()) + 1;
  const rawDone = Array.from({ length: watchers }, () => {
    let seen = 0;
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const watch = kv.watch({ key: prefix, prefix: true, startRevision: start }, {
      onEvents: (list) => {
        seen += list.length;
        if (seen >= events) resolve();
      },
      onError: () => resolve(),
    });
    return { done, watch };
  });
  const storeWatches = await Promise.all(
    Array.from({ length: watchers }, () => store.watch(prefix, { recursive: true, resourceVersion: String(start - 1) })),
  );
  const storeDone = storeWatches.map(async (watch) => {
    let seen = 0;
    for await (const event of watch) if (event.type !== 'BOOKMARK' && ++seen >= events) break;
  });
  const started = process.hrtime.bigint();
  await measureRate(events, 64, (i) => store.create(`${prefix}bench/o${i}`, sampleObject(`o${i}`) as KubeObject));
  await Promise.all(rawDone.map((w) => w.done));
  const rawSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(storeDone);
  const storeSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  for (const w of rawDone) w.watch.cancel();
  for (const w of storeWatches) w.stop();
  return row(`watch delivery, ${watchers} watcher(s), ${events} events`, `Store(${label}).watch`, (events * watchers) / storeSeconds, `raw ${label} watch`, (events * watchers) / rawSeconds, 'events/s');
}

/**
 * raw better-sqlite3 inserts (WAL, synchronous=FULL, one statement and one fsync per write, one writer):
 * the control of Store(sqlite) creates with one in flight (better-sqlite3 is synchronous, so it has no
 * "64 in flight" to compare with the subject's group commit).
 */
function rawSqliteInsertRate(path: string, total: number): number {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value BLOB)');
  const insert = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
  const started = process.hrtime.bigint();
  for (let i = 0; i < total; i++) insert.run(`/raw/${i}`, Buffer.from(bytes(`o${i}`)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  db.close();
  return total / seconds;
}

/**
 * The raw etcd3 client doing the same operation as Store.create (a create-if-absent txn: compare
 * mod_revision == 0, then put), or plain puts (the cheapest write, for reference).
 */
async function rawEtcdWriteRate(endpoint: string, total: number, concurrency: number, mode: 'create' | 'put'): Promise<number> {
  const client = new Etcd3({ hosts: endpoint, grpcOptions: { 'grpc.max_receive_message_length': 256 << 20 } });
  const run = Date.now();
  const rate = await measureRate(total, concurrency, async (i) => {
    const key = `/rawclient/${mode}-${run}/${i}`;
    const value = Buffer.from(bytes(`o${i}`));
    if (mode === 'put') await client.put(key).value(value).exec();
    else await client.if(key, 'Mod', '==', 0).then(client.put(key).value(value)).commit();
  });
  client.close();
  return rate;
}

/** All storage scenarios. */
export async function storageBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const n = options.quick ? 2000 : 10_000;
  const rows: BenchRow[] = [];
  const directory = mkdtempSync(join(tmpdir(), 'kapi-bench-'));
  try {
    console.log('[bench] memory backend');
    rows.push(...(await createRows('memory', async () => new MemoryBackend({}), n * 5, '>= 100k writes/s (raw)')));
    rows.push(...(await updateRows('memory', async () => new MemoryBackend({}), n)));
    rows.push(await listRow('memory', new MemoryBackend({}), 10_000));
    rows.push(await watchRow('memory', new MemoryBackend({}), 1, n));
    rows.push(await watchRow('memory', new MemoryBackend({}), 8, n));

    console.log('[bench] sqlite backend');
    let file = 0;
    const newSqlite = () => SqliteBackend.open({ path: join(directory, `s${file++}.db`) });
    rows.push(...(await createRows('sqlite', newSqlite, n, '>= 5,000 writes/s')));
    // Same concurrency on both sides: one writer, each write committed (fsync) before the next.
    const serialTotal = Math.min(n, 2000);
    const serialSqlite = await newSqlite();
    const serialStore = new Store({ kv: serialSqlite });
    let serialPass = 0;
    const { control: rawInserts, subject: serialCreates } = await alternate(
      async () => rawSqliteInsertRate(join(directory, `raw${serialPass++}.db`), serialTotal),
      () => {
        const id = serialPass++;
        return measureRate(serialTotal, 1, (i) => serialStore.create(`/registry/configmaps/bench/serial-${id}-${i}`, sampleObject(`o${i}`) as KubeObject));
      },
    );
    await serialSqlite.close();
    rows.push(row(`create x${serialTotal}, 1 writer (fsync each)`, 'Store(sqlite)', serialCreates, 'raw better-sqlite3 INSERT (fsync each)', rawInserts, 'writes/s'));
    // The file kept to one connection (no file locks per transaction).
    const newExclusiveSqlite = () => SqliteBackend.open({ path: join(directory, `s${file++}.db`), exclusive: true });
    rows.push(...(await createRows('sqlite exclusive', newExclusiveSqlite, n, '>= 5,000 writes/s')));
    // kube-apiserver-lite's default mode: commits on a writer thread.
    const newThreadSqlite = () => SqliteBackend.open({ path: join(directory, `s${file++}.db`), writerThread: true });
    rows.push(...(await createRows('sqlite writer thread', newThreadSqlite, n, '>= 5,000 writes/s')));
    rows.push(...(await updateRows('sqlite', newSqlite, Math.min(n, 5000))));
    const sqliteList = await newSqlite();
    rows.push(await listRow('sqlite', sqliteList, 10_000));
    await sqliteList.close();
    const sqliteWatch = await newSqlite();
    rows.push(await watchRow('sqlite', sqliteWatch, 1, Math.min(n, 5000)));
    rows.push(await watchRow('sqlite', sqliteWatch, 8, Math.min(n, 5000)));
    await sqliteWatch.close();

    console.log('[bench] etcd backend (real etcd on loopback)');
    const etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
    try {
      const newEtcd = () => Etcd3Backend.connect({ endpoints: [etcd.endpoint] });
      const etcdTotal = Math.min(n, 5000);
      for (const concurrency of [1, 64]) {
        const kv = await newEtcd();
        const store = new Store({ kv });
        let pass = 0;
        const subjectRun = () => {
          const run = `${Date.now()}-${pass++}`;
          return measureRate(etcdTotal, concurrency, (i) => store.create(`/registry/configmaps/bench/e${run}-${i}`, sampleObject(`o${i}`) as KubeObject));
        };
        const { control, subject } = await alternate(() => rawEtcdWriteRate(etcd.endpoint, etcdTotal, concurrency, 'create'), subjectRun);
        // The cheapest write, for reference: best of two as well.
        const puts = Math.max(
          await rawEtcdWriteRate(etcd.endpoint, etcdTotal, concurrency, 'put'),
          await rawEtcdWriteRate(etcd.endpoint, etcdTotal, concurrency, 'put'),
        );
        rows.push(row(`create x${etcdTotal}, ${concurrency} in flight`, 'Store(etcd3)', subject, 'raw etcd3 create txn', control, 'writes/s', concurrency === 64 ? '>= 70%' : undefined));
        rows.push(row(`create x${etcdTotal}, ${concurrency} in flight`, 'Store(etcd3)', subject, 'raw etcd3 put (no compare)', puts, 'writes/s'));
        await kv.close();
      }
      rows.push(...(await updateRows('etcd3', newEtcd, Math.min(n, 3000))));
      const etcdList = await newEtcd();
      rows.push(await listRow('etcd3', etcdList, 10_000));
      rows.push(await watchRow('etcd3', etcdList, 1, Math.min(n, 3000)));
      rows.push(await watchRow('etcd3', etcdList, 8, Math.min(n, 3000)));
      await etcdList.close();
    } finally {
      await etcd.stop();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return rows;
}
