import { Store } from '@kapi/storage';
import { runStorageConformance } from '@kapi/storage/testing';
import { MemoryBackend } from './memory-backend.js';

runStorageConformance('memory', async () => {
  const kv = new MemoryBackend({ progressNotifyIntervalMs: 200 });
  return { store: new Store({ kv }), kv, close: () => kv.close() };
});
