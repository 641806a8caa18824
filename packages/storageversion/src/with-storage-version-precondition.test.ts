import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext, withRequestInfo, type UserInfo } from '@kapi/filters';
import { withStorageVersionPrecondition } from './with-storage-version-precondition.js';

let completed = false;
const pending = new Set(['horizontalpodautoscalers.autoscaling', 'configmaps', 'namespaces', 'leases.coordination.k8s.io']);
const gate = {
  completed: () => completed,
  isPending: (gr: { group: string; resource: string }) => pending.has(gr.group ? `${gr.resource}.${gr.group}` : gr.resource),
  lastError: () => '<nil>',
};

let server: http.Server;
let base = '';

beforeAll(async () => {
  const setUser = (next: http.RequestListener): http.RequestListener => (request, response) => {
    const name = String(request.headers['x-user'] ?? 'alice');
    const user: UserInfo = { name, groups: name === 'system:apiserver' ? ['system:masters'] : ['system:authenticated'] };
    requestContext(request).user = user;
    return next(request, response);
  };
  const handler = buildHandlerChain([withRequestInfo(), setUser, withStorageVersionPrecondition(gate)], (_request, response) => {
    response.writeHead(200);
    response.end('ok');
  });
  server = http.createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const send = (method: string, path: string, user?: string) =>
  fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(user ? { 'x-user': user } : {}) },
    ...(method === 'GET' ? {} : { body: '{}' }),
  });

describe('withStorageVersionPrecondition', () => {
  it('refuses writes to pending resources with the upstream 503', async () => {
    completed = false;
    const response = await send('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBeNull();
    const status = (await response.json()) as { reason: string; message: string };
    expect(status.reason).toBe('ServiceUnavailable');
    expect(status.message).toBe(
      'wait for storage version registration to complete for resource: horizontalpodautoscalers.autoscaling, last seen error: <nil>',
    );
  });

  it('lets through exactly the upstream exemptions', async () => {
    completed = false;
    expect((await send('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers')).status).toBe(200);
    expect((await send('GET', '/healthz')).status).toBe(200);
    expect((await send('POST', '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions')).status).toBe(200);
    expect((await send('POST', '/api/v1/namespaces', 'system:apiserver')).status).toBe(200);
    expect((await send('POST', '/api/v1/namespaces', 'alice')).status).toBe(503);
    expect((await send('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x')).status).toBe(200);
    expect((await send('PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/x')).status).toBe(503);
    expect((await send('POST', '/api/v1/namespaces/default/secrets')).status).toBe(200);
  });

  it('does nothing once registration completed', async () => {
    completed = true;
    expect((await send('POST', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
  });
});
