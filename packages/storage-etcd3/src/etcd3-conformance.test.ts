import { Store } from '@kapi/storage';
import { runKVBackendConformance, runStorageConformance } from '@kapi/storage/testing';
import { afterAll, beforeAll } from 'vitest';
import { Etcd3Backend } from './etcd3-backend.js';
import { startEtcd, type EtcdInstance } from './testing/index.js';

let etcd: EtcdInstance;
let targets = 0;

beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 300 });
});
afterAll(async () => {
  await etcd?.stop();
});

/** One etcd for the file; each target gets its own client and key prefix. */
function connect(): Promise<Etcd3Backend> {
  return Etcd3Backend.connect({ endpoints: [etcd.endpoint], prefix: `/conformance-${++targets}` });
}

runStorageConformance('etcd3', async () => {
  const kv = await connect();
  return { store: new Store({ kv }), kv, close: () => kv.close() };
});

runKVBackendConformance('etcd3', async () => {
  const kv = await connect();
  return { kv, close: () => kv.close() };
});
