import { runKVBackendConformance } from '@kapi/storage/testing';
import { SqliteBackend } from './sqlite-backend.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const modes = [
  { name: 'sqlite', exclusive: false, writerThread: false },
  { name: 'sqlite (exclusive)', exclusive: true, writerThread: false },
  { name: 'sqlite (writer thread)', exclusive: false, writerThread: true },
];

for (const { name, exclusive, writerThread } of modes) {
  runKVBackendConformance(name, async () => {
    const database = temporaryDatabase();
    const kv = await SqliteBackend.open({ path: database.path, progressNotifyIntervalMs: 200, exclusive, writerThread });
    return {
      kv,
      close: async () => {
        await kv.close();
        database.remove();
      },
    };
  });
}
