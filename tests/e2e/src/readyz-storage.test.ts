import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: RestClient;

beforeAll(async () => {
  server = await startServer({ waitReady: false });
  admin = server.client();
});

afterAll(async () => {
  await server?.stop();
});

// Unpaged lists: the watch cache serves them, and answers 429 while it is not ready.
const lists = [
  '/api/v1/configmaps',
  '/api/v1/secrets',
  '/api/v1/namespaces',
  '/apis/coordination.k8s.io/v1/leases',
  '/apis/rbac.authorization.k8s.io/v1/clusterroles',
];

describe('/readyz and the watch cache from the first request on', () => {
  it('once /readyz is 200 no read gets 429, and readyz names poststarthook/storage-readiness', async () => {
    const readyzBodies: string[] = [];
    const codesAfterReady: number[] = [];
    let readySince: number | undefined;
    const deadline = Date.now() + 50_000;
    while (codesAfterReady.length < 50 && Date.now() < deadline) {
      const readyz = await admin.raw({ method: 'GET', path: '/readyz', query: { verbose: 'true' } });
      if (readySince === undefined) {
        readyzBodies.push(readyz.body.toString());
        if (readyz.statusCode === 200) readySince = Date.now();
      }
      const codes = await Promise.all(lists.map(async (path) => (await admin.raw({ method: 'GET', path })).statusCode));
      if (readySince !== undefined) codesAfterReady.push(...codes);
    }
    expect(readySince).toBeDefined();
    expect(readyzBodies.at(-1)).toContain('[+]poststarthook/storage-readiness ok\n');
    for (const body of readyzBodies.slice(0, -1)) expect(body).toContain('poststarthook/storage-readiness');
    expect(codesAfterReady.filter((code) => code !== 200)).toEqual([]);
  });
});
