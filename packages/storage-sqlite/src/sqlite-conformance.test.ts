import { Store } from '@kapi/storage';
import { runStorageConformance } from '@kapi/storage/testing';
import { SqliteBackend } from './sqlite-backend.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

for (const exclusive of [false, true]) {
  runStorageConformance(exclusive ? 'sqlite (exclusive)' : 'sqlite', async () => {
    const database = temporaryDatabase();
    const kv = await SqliteBackend.open({ path: database.path, progressNotifyIntervalMs: 200, exclusive });
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
