import { runKVBackendConformance } from '@kapi/storage/testing';
import { MemoryBackend } from './memory-backend.js';

runKVBackendConformance('memory', async () => {
  const kv = new MemoryBackend({ progressNotifyIntervalMs: 200 });
  return { kv, close: () => kv.close() };
});
