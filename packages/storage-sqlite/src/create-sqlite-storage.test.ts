import type { KubeObject } from '@kapi/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStorage } from './create-sqlite-storage.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const configMap = (name: string, data: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data }) as KubeObject;

describe('createSqliteStorage', () => {
  let database: ReturnType<typeof temporaryDatabase>;

  beforeEach(() => {
    database = temporaryDatabase();
  });
  afterEach(() => database.remove());

  it('stores objects durably through a Store that owns the backend', async () => {
    const store = await createSqliteStorage({ path: database.path });
    const created = await store.create('/registry/configmaps/default/a', configMap('a', { k: 'v' }));
    expect(created.metadata.resourceVersion).toBe('2');
    await store.close();

    const reopened = await createSqliteStorage({ path: database.path });
    try {
      const got = await reopened.get('/registry/configmaps/default/a');
      expect(got).toMatchObject({ metadata: { name: 'a', resourceVersion: '2' }, data: { k: 'v' } });
      const list = await reopened.getList('/registry/configmaps/', { recursive: true });
      expect(list.items).toHaveLength(1);
      expect(list.resourceVersion).toBe('2');
    } finally {
      await reopened.close();
    }
  });
});
