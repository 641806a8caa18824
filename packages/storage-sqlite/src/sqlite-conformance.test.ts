import { Store } from '@kapi/storage';
import { runStorageConformance } from '@kapi/storage/testing';
import { SqliteBackend } from './sqlite-backend.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const modes = [
  { name: 'sqlite', exclusive: false, writerThread: false },
  { name: 'sqlite (exclusive)', exclusive: true, writerThread: false },
  { name: 'sqlite (writer thread)', exclusive: false, writerThread: true },
];

for (const { name, exclusive, writerThread } of modes) {
  runStorageConformance(name, async () => {
    const database = temporaryDatabase();
    const kv = await SqliteBackend.open({ path: database.path, progressNotifyIntervalMs: 200, exclusive, writerThread });
    return {
      store: new Store({ kv }),
      kv,
      close: async () => {
        await kv.close();
        database.remove();
      },
    };
  });
}
