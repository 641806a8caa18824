import { isKubeObject, type KubeObject } from '@kapi/apimachinery';
import {
  Store,
  type Compactor,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type GuaranteedUpdateOptions,
  type Interface,
  type KVBackend,
  type ListOptions,
  type ListResult,
  type ProgressRequester,
  type RevisionReader,
  type UpdateResult,
  type Watch,
} from '@kapi/storage';
import { runStorageConformance } from '@kapi/storage/testing';
import { Cacher } from './cacher.js';
import { MemoryBackend } from '@kapi/storage-memory';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { Etcd3Backend } from '@kapi/storage-etcd3';
import { startEtcd, type EtcdInstance } from '@kapi/storage-etcd3/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * The suite writes objects under keys that are not derived from the objects (`<prefix>pods/ns/c` for an
 * object named `c`), while a cache must find an object's key from the object (a server's key function).
 * This store remembers the key each object was written under, and the cacher's key function reads it:
 * the stand-in for a registry's key function.
 */
class KeyRecordingStore implements Interface, ProgressRequester, RevisionReader, Compactor {
  private readonly keys = new Map<string, string>();

  constructor(private readonly inner: Store) {}

  keyOf(object: KubeObject): string {
    return this.keys.get(identity(object)) ?? `/unknown/${identity(object)}`;
  }

  create(key: string, object: KubeObject, options?: CreateOptions): Promise<KubeObject> {
    this.keys.set(identity(object), key);
    return this.inner.create(key, object, options);
  }
  get(key: string, options?: GetOptions): Promise<KubeObject | undefined> {
    return this.inner.get(key, options);
  }
  getList(key: string, options?: ListOptions): Promise<ListResult> {
    return this.inner.getList(key, options);
  }
  watch(key: string, options?: ListOptions): Promise<Watch> {
    return this.inner.watch(key, options);
  }
  guaranteedUpdate(key: string, options: GuaranteedUpdateOptions): Promise<KubeObject> {
    return this.inner.guaranteedUpdate(key, {
      ...options,
      tryUpdate: async (current, meta) => {
        const result: UpdateResult = await options.tryUpdate(current, meta);
        this.keys.set(identity(isKubeObject(result) ? result : result.object), key);
        return result;
      },
    });
  }
  delete(key: string, options?: DeleteOptions): Promise<KubeObject> {
    return this.inner.delete(key, options);
  }
  count(key: string): Promise<number> {
    return this.inner.count(key);
  }
  requestWatchProgress(): Promise<void> {
    return this.inner.requestWatchProgress();
  }
  get watchProgressSupported(): boolean {
    return this.inner.watchProgressSupported;
  }
  getCurrentResourceVersion(): Promise<number> {
    return this.inner.getCurrentResourceVersion();
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  compactRevision(): Promise<number> {
    return this.inner.compactRevision();
  }
}

function identity(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

/**
 * A cacher over a Store over `kv`, started, with the raw backend exposed for the suite. The embedded
 * backends run it as kube-apiserver-lite does (consistent GETs from the cache), etcd as upstream does.
 */
async function cacherTarget(kv: KVBackend, closeKV: () => Promise<void>, consistentGetFromCache = false) {
  const storage = new KeyRecordingStore(new Store({ kv }));
  const cacher = new Cacher({
    storage,
    resourcePrefix: '/registry/conformance',
    keyFunc: (object) => storage.keyOf(object),
    retryDelayMs: 100,
    consistentGetFromCache,
  });
  await cacher.start();
  return {
    store: cacher,
    kv,
    close: async () => {
      await cacher.stop();
      await closeKV();
    },
  };
}

runStorageConformance('cacher/memory', () => {
  const kv = new MemoryBackend({ progressNotifyIntervalMs: 200 });
  return cacherTarget(kv, () => kv.close(), true);
});

const directory = mkdtempSync(join(tmpdir(), 'kapi-cacher-sqlite-'));
let files = 0;
afterAll(() => rmSync(directory, { recursive: true, force: true }));

runStorageConformance('cacher/sqlite', async () => {
  const kv = await SqliteBackend.open({ path: join(directory, `c${++files}.db`), progressNotifyIntervalMs: 200 });
  return cacherTarget(kv, () => kv.close());
});

runStorageConformance('cacher/sqlite (exclusive, consistent GETs from the cache)', async () => {
  const kv = await SqliteBackend.open({ path: join(directory, `c${++files}.db`), progressNotifyIntervalMs: 200, exclusive: true });
  return cacherTarget(kv, () => kv.close(), true);
});

let etcd: EtcdInstance | undefined;
let etcdTargets = 0;
beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 300 });
});
afterAll(async () => {
  await etcd?.stop();
});

runStorageConformance('cacher/etcd3', async () => {
  if (!etcd) throw new Error('etcd did not start');
  const kv = await Etcd3Backend.connect({ endpoints: [etcd.endpoint], prefix: `/cacher-conformance-${++etcdTargets}` });
  return cacherTarget(kv, () => kv.close());
});
