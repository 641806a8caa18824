import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { KubeObject } from '@kapi/apimachinery';
import { Store, type KVBackend, type ListOptions, type ListResult } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { Etcd3Backend } from '@kapi/storage-etcd3';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { Cacher } from '@kapi/watch-cache';
import { measureMs, measureRate, percentile, row, sampleObject, type BenchRow } from './harness.js';
import { watchFanOutRows } from './watch-fanout.js';
import { watchHeapH2Rows } from './watch-heap-h2.js';
import { watchHeapHttpRows } from './watch-heap-http.js';

const execFileAsync = promisify(execFile);
const heapScript = fileURLToPath(new URL('./watch-heap-child.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const prefix = '/registry/configmaps';
const objectName = (i: number) => `o${String(i).padStart(6, '0')}`;

/** Rejects when `promise` has not settled within `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A ratio that stays finite-ish for counts whose control may be zero. */
function countRow(scenario: string, subject: string, subjectValue: number, control: string, controlValue: number, unit: string, target?: string): BenchRow {
  const base = row(scenario, subject, subjectValue, control, controlValue, unit, target);
  return { ...base, ratio: controlValue === 0 ? (subjectValue === 0 ? 1 : Number.POSITIVE_INFINITY) : subjectValue / controlValue };
}

/** A row recording that a scenario failed (so the table shows it instead of silently missing it). */
function failedRow(scenario: string, error: unknown): BenchRow {
  console.error(`[bench] ${scenario} failed:`, error);
  return { scenario, subject: 'FAILED', control: '', unit: '', subjectValue: Number.NaN, controlValue: Number.NaN, ratio: Number.NaN, notes: String(error instanceof Error ? error.message : error) };
}

/** A Store counting the reads the cacher sends it (to see when a cached read fell back to the storage). */
class CountingStore extends Store {
  lists = 0;
  progressRequests = 0;

  override getList(key: string, options?: ListOptions): Promise<ListResult> {
    this.lists++;
    return super.getList(key, options);
  }

  override requestWatchProgress(): Promise<void> {
    this.progressRequests++;
    return super.requestWatchProgress();
  }
}

async function fill(store: Store, count: number): Promise<void> {
  await measureRate(count, 64, (i) => store.create(`${prefix}/bench/${objectName(i)}`, sampleObject(objectName(i)) as KubeObject));
}

/** Scenario 2: LIST of `count` x 2 KB through the storage Interface, Cacher (RV "0") beside Store (RV ""). */
async function listFromCacheRow(label: string, kv: KVBackend, count: number, repeats: number): Promise<BenchRow> {
  const store = new Store({ kv });
  await fill(store, count);
  const cacher = new Cacher({ storage: store, resourcePrefix: prefix, loadHistory: false });
  try {
    await withTimeout(cacher.start(), 120_000, `${label} cacher start`);
    const key = `${prefix}/`;
    const cached = await cacher.getList(key, { recursive: true, resourceVersion: '0' });
    if (cached.items.length !== count) throw new Error(`cache listed ${cached.items.length} of ${count} objects`);
    const cacheRate = await measureRate(repeats * 10, 1, () => cacher.getList(key, { recursive: true, resourceVersion: '0' }));
    const storeRate = await measureRate(repeats, 1, () => store.getList(key, { recursive: true, resourceVersion: '' }));
    return row(`LIST ${count} x 2 KB via storage Interface (${label})`, 'Cacher.getList RV="0"', cacheRate, 'Store.getList RV=""', storeRate, 'lists/s', '>= 10x (1000%)');
  } finally {
    await cacher.stop();
  }
}

/**
 * Scenario 3: consistent LISTs (RV "") of `count` objects while another resource is written every 10 ms
 * (so the backend's revision is ahead of the cache and the read must wait for progress), from the Cacher
 * beside the same LIST from the Store.
 */
async function consistentReadRows(label: string, kv: KVBackend, count: number, samples: number, notes: string): Promise<BenchRow[]> {
  const store = new CountingStore({ kv });
  await fill(store, count);
  const cacher = new Cacher({ storage: store, resourcePrefix: prefix, loadHistory: false });
  let writing = true;
  let writes = 0;
  const writer = (async () => {
    const run = Date.now();
    while (writing) {
      await store.create(`/registry/secrets/bench/s-${run}-${writes}`, sampleObject(`s-${writes}`) as KubeObject).catch(() => undefined);
      writes++;
      await sleep(10);
    }
  })();
  try {
    await withTimeout(cacher.start(), 120_000, `${label} cacher start`);
    const key = `${prefix}/`;
    const listsBefore = store.lists;
    const progressBefore = store.progressRequests;
    // Reads are spread out (0-20 ms apart) so that writes land between them and the cache is behind.
    const pause = () => sleep(Math.random() * 20);
    const cacheMs: number[] = [];
    let waited = 0;
    for (let i = 0; i < samples; i++) {
      await pause();
      const progressBeforeRead = store.progressRequests;
      cacheMs.push(await measureMs(() => cacher.getList(key, { recursive: true, resourceVersion: '' })));
      if (store.progressRequests > progressBeforeRead) waited++;
    }
    const fallbacks = store.lists - listsBefore;
    const progressRequests = store.progressRequests - progressBefore;
    const storeMs: number[] = [];
    for (let i = 0; i < samples; i++) {
      await pause();
      storeMs.push(await measureMs(() => store.getList(key, { recursive: true, resourceVersion: '' })));
    }
    const scenario = (p: number) => `consistent LIST p${p} (RV="", ${count} x 2 KB, writes elsewhere every 10 ms, ${label})`;
    const detail = `${samples} lists, ${waited} waited for the cache (progress requested), max ${Math.max(...cacheMs).toFixed(0)} ms; ${fallbacks} fell back to the storage; ${progressRequests} progress requests; ${notes}`;
    return [50, 99].map((p) => ({
      ...row(scenario(p), 'Cacher (wait for progress, then cache)', percentile(cacheMs, p), 'Store.getList', percentile(storeMs, p), 'ms (lower is better)'),
      notes: detail,
    }));
  } finally {
    writing = false;
    await writer;
    await cacher.stop();
  }
}

/** Scenario 4: heap per cached object and per idle watch, measured in a child with --expose-gc. */
async function heapRows(objects: number, watchers: number): Promise<BenchRow[]> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', heapScript, JSON.stringify({ objects, watchers })],
    { maxBuffer: 16 << 20, timeout: 300_000 },
  );
  const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
    serializedBytesPerObject: number;
    heapPerCachedObject: number;
    heapPerStoreWatch: number;
    heapPerCacheWatch: number;
  };
  return [
    row(`heap per cached object (${objects} x 2 KB in a Cacher)`, 'Cacher heap/object', result.heapPerCachedObject, 'serialized JSON size', result.serializedBytesPerObject, 'bytes (lower is better)', '<= 200%'),
    {
      ...row(`heap per idle watch (${watchers} watches)`, 'Cacher.watch heap/watch', result.heapPerCacheWatch, 'Store.watch heap/watch', result.heapPerStoreWatch, 'bytes (lower is better)', '<= 20 KB'),
      notes: `${(result.heapPerCacheWatch / 1024).toFixed(1)} KB per idle cacher watch`,
    },
  ];
}

/** Scenario 5: the e2e rolling restart of 3 replicas on real etcd, KEP-1904 on beside off. */
async function rollingRestartRows(directory: string): Promise<BenchRow[]> {
  const { runRollingRestart } = (await import('../../tests/e2e/src/rolling-restart.js')) as typeof import('../../tests/e2e/src/rolling-restart.js');
  const etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  try {
    const args = (extra: string[]) => (replica: number) => [
      '--storage=etcd',
      `--etcd-servers=${etcd.endpoint}`,
      `--hostname-override=replica-${replica + 1}`,
      '--etcd-compaction-interval=10m',
      ...extra,
    ];
    // Own data dirs (the e2e helper keeps them across restarts and leaves them behind), removed with `directory`.
    const run = (extra: string[]) => {
      const dataDirs = [0, 1, 2].map((replica) => join(directory, `${extra.length ? 'off' : 'on'}-${replica}`));
      for (const dataDir of dataDirs) mkdirSync(dataDir, { recursive: true });
      return withTimeout(runRollingRestart({ args: args(extra), replicas: 3, restart: [0, 1, 2], watchVia: 0, writeVia: 1, dataDirs }), 300_000, 'rolling restart');
    };
    console.log('[bench] rolling restart, progress notify on');
    const on = await run([]);
    console.log('[bench] rolling restart, progress notify off');
    const off = await run(['--watch-cache-progress-notify=false', '--watch-cache-history=false']);
    const scenario = (what: string) => `rolling restart x3 on etcd: ${what}`;
    const notes = `writes: on ${on.writes}, off ${off.writes}`;
    return [
      { ...countRow(scenario('@kapi/client Reflector relists'), 'KEP-1904 on', on.reflector.relists, 'KEP-1904 off', off.reflector.relists, 'relists (lower is better)', '0'), notes },
      { ...countRow(scenario('@kapi/client Reflector 410s'), 'KEP-1904 on', on.reflector.expired, 'KEP-1904 off', off.reflector.expired, '410s (lower is better)', '0'), notes },
      { ...countRow(scenario('client-node informer relists'), 'KEP-1904 on', on.clientNode.relists, 'KEP-1904 off', off.clientNode.relists, 'relists (lower is better)', '0'), notes },
      { ...countRow(scenario('client-node informer 410s'), 'KEP-1904 on', on.clientNode.expired, 'KEP-1904 off', off.clientNode.expired, '410s (lower is better)', '0'), notes },
    ];
  } finally {
    await etcd.stop();
  }
}

/** `--watch-only=fan-out,list,consistent-read,heap,heap-http,heap-h2,rolling-restart` runs a subset (default: all). */
const only = process.argv.find((arg) => arg.startsWith('--watch-only='))?.slice('--watch-only='.length).split(',');

/** Runs one scenario (unless excluded by `--watch-only`), turning a failure into a FAILED row. */
async function attempt(name: string, rows: BenchRow[], run: () => Promise<BenchRow[]>): Promise<void> {
  if (only && !only.some((wanted) => name.startsWith(wanted))) return;
  console.log(`[bench] watch: ${name}`);
  try {
    rows.push(...(await run()));
  } catch (error) {
    rows.push(failedRow(name, error));
  }
}

/** The watch-cache scenarios (issue 4), each beside its control. */
export async function watchBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const { quick } = options;
  const rows: BenchRow[] = [];
  const directory = mkdtempSync(join(tmpdir(), 'kapi-watch-bench-'));
  let file = 0;
  const newSqlite = () => SqliteBackend.open({ path: join(directory, `w${file++}.db`) });
  try {
    await attempt('fan-out', rows, () => watchFanOutRows({ watchers: 1000, events: quick ? 200 : 1000, timeoutMs: 120_000 }));

    const listCount = 10_000;
    await attempt('list from the cache (memory)', rows, async () => {
      const kv = new MemoryBackend({});
      try {
        return [await listFromCacheRow('memory', kv, listCount, quick ? 5 : 20)];
      } finally {
        await kv.close();
      }
    });
    await attempt('list from the cache (SQLite)', rows, async () => {
      const kv = await newSqlite();
      try {
        return [await listFromCacheRow('sqlite', kv, listCount, quick ? 5 : 20)];
      } finally {
        await kv.close();
      }
    });

    const readCount = quick ? 200 : 1000;
    const samples = quick ? 50 : 200;
    await attempt('consistent-read (SQLite)', rows, async () => {
      const kv = await newSqlite();
      try {
        return await consistentReadRows('sqlite', kv, readCount, samples, 'SQLite answers progress requests');
      } finally {
        await kv.close();
      }
    });
    await attempt('consistent-read (etcd)', rows, async () => {
      const etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
      try {
        const kv = await Etcd3Backend.connect({ endpoints: [etcd.endpoint] });
        try {
          const progress = kv.requestProgress ? 'RequestProgress supported' : 'no safe RequestProgress: waits for the periodic progress notify (1 s)';
          return await consistentReadRows('etcd', kv, readCount, samples, `etcd ${kv.serverVersion}, ${progress}`);
        } finally {
          await kv.close();
        }
      } finally {
        await etcd.stop();
      }
    });

    await attempt('heap', rows, () => heapRows(10_000, 1000));
    await attempt('heap-http', rows, () => watchHeapHttpRows({ watchers: quick ? 2000 : 10_000 }));
    await attempt('heap-h2', rows, () => watchHeapH2Rows({ watchers: quick ? 2000 : 10_000, streamsPerSession: 1000 }));
    await attempt('rolling-restart', rows, () => rollingRestartRows(directory));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  for (const entry of rows) if (entry.notes) console.log(`[bench] ${entry.scenario}: ${entry.notes}`);
  return rows;
}
