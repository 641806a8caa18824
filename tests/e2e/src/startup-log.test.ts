import { sleep } from '@kapi/client';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';

/**
 * The server's own controllers (system namespaces, bootstrap RBAC, APIServices, the migration trigger)
 * start while the storage-version barrier still holds writes: they wait for it rather than being
 * answered 503 and logging it on every start.
 */
describe('a normal start', () => {
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('logs no 503 from the storage-version barrier', async () => {
    server = await startServer();
    const client = server.client();
    // Ready means the bootstrap hooks are done; the migration trigger writes a StorageState per resource after.
    let states = 0;
    for (let attempt = 0; attempt < 300 && states === 0; attempt++) {
      const list = await client.request<{ items: unknown[] }>({ method: 'GET', path: '/apis/migration.k8s.io/v1alpha1/storagestates' });
      states = list.items.length;
      if (states === 0) await sleep(100);
    }
    const output = server.output();
    expect(output).toContain('serving on');
    expect(output).not.toMatch(/status=503/);
    expect(output).not.toMatch(/wait for storage version registration/);
    expect(states).toBeGreaterThan(0);
  });
});
