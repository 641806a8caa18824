import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startServer, type TestServer } from './harness.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

describe('Table cells carry zero values', () => {
  it('kubectl get cm shows 0 in DATA for a ConfigMap without data, and counts binaryData', async () => {
    await kubectl(server, ['create', 'configmap', 'empty-cm']);
    await kubectl(server, ['create', 'configmap', 'two-cm', '--from-literal=a=1', '--from-file=b=/dev/null']);
    const out = await kubectl(server, ['get', 'cm', 'empty-cm', 'two-cm', '--no-headers']);
    expect(out).toMatch(/^empty-cm\s+0\s+\S+$/m);
    expect(out).toMatch(/^two-cm\s+2\s+\S+$/m);
  });

  it('a Secret without data shows DATA 0 and a ServiceAccount without secrets shows SECRETS 0', async () => {
    await kubectl(server, ['create', 'secret', 'generic', 'empty-secret']);
    await kubectl(server, ['create', 'serviceaccount', 'bare-sa']);
    expect(await kubectl(server, ['get', 'secret', 'empty-secret', '--no-headers'])).toMatch(/^empty-secret\s+Opaque\s+0\s+\S+$/m);
    expect(await kubectl(server, ['get', 'sa', 'bare-sa', '--no-headers'])).toMatch(/^bare-sa\s+0\s+\S+$/m);
  });
});
