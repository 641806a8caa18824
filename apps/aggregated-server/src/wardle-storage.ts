import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StorageFactory } from '@kapi/server';
import { Store, type Interface, type KVBackend } from '@kapi/storage';
import { Etcd3Backend } from '@kapi/storage-etcd3';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { Cacher } from '@kapi/watch-cache';
import type { AggregatedServerOptions } from './options.js';

/** The server's own storage: one backend, one Store (and watch cache) per resource. */
export interface WardleStorage {
  factory: StorageFactory;
  describe: string;
  close(): Promise<void>;
}

/** Opens SQLite in `--data-dir` (default) or etcd (`--etcd-servers`), never the main server's store. */
export async function openWardleStorage(options: AggregatedServerOptions): Promise<WardleStorage> {
  let kv: KVBackend;
  let describe: string;
  if (options.storage === 'etcd') {
    kv = await Etcd3Backend.connect({ endpoints: options.etcdServers });
    describe = `etcd at ${options.etcdServers.join(',')}`;
  } else {
    mkdirSync(options.dataDir, { recursive: true });
    const path = join(options.dataDir, 'wardle.db');
    kv = await SqliteBackend.open({ path, writerThread: true });
    describe = `SQLite at ${path}`;
  }
  const factory: StorageFactory = ({ prefix, codec, definition }) => {
    const store = new Store({ kv, codec });
    if (!options.watchCache) return store;
    const cacher = new Cacher({
      storage: store,
      resourcePrefix: prefix,
      ...(definition.strategy?.getAttributes ? { getAttributes: definition.strategy.getAttributes } : {}),
    });
    void cacher.start();
    return cacher satisfies Interface;
  };
  return {
    factory,
    describe: `${describe}, prefix ${options.etcdPrefix}${options.watchCache ? ', watch cache' : ''}`,
    async close() {
      await kv.close();
    },
  };
}
