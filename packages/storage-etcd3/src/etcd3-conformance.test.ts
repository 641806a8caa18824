import { Store } from '@kapi/storage';
import { runStorageConformance } from '@kapi/storage/testing';
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

runStorageConformance('etcd3', async () => {
  // One etcd for the file; each target gets its own client and key prefix.
  const kv = await Etcd3Backend.connect({ endpoints: [etcd.endpoint], prefix: `/conformance-${++targets}` });
  return { store: new Store({ kv }), kv, close: () => kv.close() };
});
