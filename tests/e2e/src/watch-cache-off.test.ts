import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeList, KubeObject } from '@kapi/apimachinery';
import { sleep } from '@kapi/client';
import type { StorageVersionMigration } from '@kapi/migrator';
import { kubectl, startServer, waitReady, type TestServer } from './harness.js';

const migrationsPath = '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations';

let server: TestServer;

beforeAll(async () => {
  // Every read from SQLite, which answers without I/O: the server's own controllers (the built-in
  // migrator among them) then get answers to their in-process requests without any I/O in between.
  server = await startServer({ args: ['--storage=sqlite', '--watch-cache=false'] });
  await waitReady(server);
});

afterAll(async () => {
  await server?.stop();
});

describe('kube-apiserver-lite with --watch-cache=false (reads served from SQLite)', () => {
  it('runs its built-in migrations to Succeeded and keeps answering (it used to spin on a finished migration and stop serving)', async () => {
    const admin = server.client();
    let migrations: StorageVersionMigration[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
      migrations = (await admin.request<KubeList<StorageVersionMigration>>({ method: 'GET', path: migrationsPath, timeoutMs: 5000 })).items;
      const succeeded = (migration: StorageVersionMigration) => migration.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True');
      if (migrations.length > 0 && migrations.every(succeeded)) break;
    }
    const hpas = migrations.find((migration) => migration.spec?.resource?.resource === 'horizontalpodautoscalers');
    expect(hpas?.status?.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Succeeded', status: 'True' })]));

    // Still serving, to kubectl too, a second after the migrations ended.
    await sleep(1000);
    await kubectl(server, ['create', 'configmap', 'after-migrations', '--from-literal=k=v']);
    const read = await admin.request<KubeObject>({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/after-migrations', timeoutMs: 5000 });
    expect(read.metadata.name).toBe('after-migrations');
    expect(await kubectl(server, ['get', 'storageversionmigrations', '--request-timeout=5s'])).toMatch(/horizontalpodautoscalers\.autoscaling-\S+\s+autoscaling\s+horizontalpodautoscalers\s+False\s+True/);
  });
});
