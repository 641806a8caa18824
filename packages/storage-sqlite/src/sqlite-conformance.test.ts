import { Store } from '@kapi/storage';
import { runStorageConformance } from '@kapi/storage/testing';
import { SqliteBackend } from './sqlite-backend.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

runStorageConformance('sqlite', async () => {
  const database = temporaryDatabase();
  const kv = await SqliteBackend.open({ path: database.path, progressNotifyIntervalMs: 200 });
  return {
    store: new Store({ kv }),
    kv,
    close: async () => {
      await kv.close();
      database.remove();
    },
  };
});
