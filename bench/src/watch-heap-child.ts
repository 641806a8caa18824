import type { KubeObject } from '@kapi/apimachinery';
import { Store, type Watch } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { Cacher } from '@kapi/watch-cache';
import { measureRate, sampleObject } from './harness.js';

/**
 * Scenario 4, in its own process started with `--expose-gc` (forked by watch-bench.ts): the heap retained
 * per cached object and per idle watch. Prints one JSON line.
 *
 * Objects: heapUsed after a full GC before and after a Cacher loads `objects` 2 KB objects (by its LIST;
 * history loading off, so the event history holds nothing), against their serialized size. Watches:
 * heapUsed before and after opening `watchers` idle cacher watches, against the same number of idle
 * Store (backend) watches.
 */
const { objects, watchers } = JSON.parse(process.argv[2] ?? '{}') as { objects: number; watchers: number };
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

async function heapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

const prefix = '/registry/configmaps';
const kv = new MemoryBackend({ progressNotifyIntervalMs: 60_000 });
const store = new Store({ kv });
const name = (i: number) => `o${String(i).padStart(6, '0')}`;
await measureRate(objects, 64, (i) => store.create(`${prefix}/bench/${name(i)}`, sampleObject(name(i)) as KubeObject));
const listed = await store.getList(`${prefix}/`, { recursive: true });
const serializedBytes = listed.items.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0);
listed.items.length = 0;

const beforeCache = await heapUsed();
const cacher = new Cacher({ storage: store, resourcePrefix: prefix, loadHistory: false });
await cacher.start();
const afterCache = await heapUsed();

const revision = String(cacher.resourceVersion);
const storeWatches: Watch[] = [];
const beforeStoreWatches = await heapUsed();
for (let i = 0; i < watchers; i++) storeWatches.push(await store.watch(`${prefix}/`, { recursive: true, resourceVersion: revision }));
const afterStoreWatches = await heapUsed();

const cacheWatches: Watch[] = [];
const beforeCacheWatches = await heapUsed();
for (let i = 0; i < watchers; i++) cacheWatches.push(await cacher.watch(`${prefix}/`, { recursive: true, resourceVersion: revision }));
const afterCacheWatches = await heapUsed();

console.log(
  JSON.stringify({
    objects,
    watchers,
    cached: cacher.isReady,
    serializedBytesPerObject: serializedBytes / objects,
    heapPerCachedObject: (afterCache - beforeCache) / objects,
    heapPerStoreWatch: (afterStoreWatches - beforeStoreWatches) / watchers,
    heapPerCacheWatch: (afterCacheWatches - beforeCacheWatches) / watchers,
  }),
);
for (const watch of [...cacheWatches, ...storeWatches]) watch.stop();
await cacher.stop();
await store.close();
await kv.close();
process.exit(0);
