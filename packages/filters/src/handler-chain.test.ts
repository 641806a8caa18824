import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext, type Handler } from './handler.js';
import { withPanicRecovery } from './with-panic-recovery.js';
import { withRequestInfo } from './with-request-info.js';
import { withMaxInFlight } from './with-max-in-flight.js';
import { withRequestTimeout } from './with-request-timeout.js';
import { withCors } from './with-cors.js';
import { withAuthentication } from './with-authentication.js';
import { withAuthorization } from './with-authorization.js';
import { tokenFileAuthenticator } from './token-file-authenticator.js';
import { clientCertAuthenticator } from './client-cert-authenticator.js';
import { generateLoopbackToken, loopbackAuthenticator } from './loopback-authenticator.js';
import { RBACAuthorizer } from './rbac-authorizer.js';
import { InMemoryRBACRules, group, user } from './rbac-test-data.js';
import { createTestCertificates, type KeyPair, type TestCertificates } from './test-certificates.js';
import { serve, type SendOptions, type TestServer } from './test-support.js';

describe('the handler chain, outermost first, over HTTPS', () => {
  let certificates: TestCertificates;
  let server: TestServer;
  let alice: KeyPair;
  const loopbackToken = generateLoopbackToken();
  const limiter = withMaxInFlight({ maxRequestsInFlight: 2, maxMutatingRequestsInFlight: 1 });
  const held: Array<() => void> = [];

  // The API handler: /api/v1/namespaces/default/pods/hold waits until released; .../boom throws.
  const api: Handler = async (request, response) => {
    const context = requestContext(request);
    const info = context.requestInfo!;
    if (info.name === 'hold') await new Promise<void>((resolve) => held.push(resolve));
    if (info.name === 'slow') {
      await new Promise<void>((resolve) =>
        context.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    if (info.name === 'boom') throw new Error('handler exploded');
    const body = JSON.stringify({ user: context.user?.name, verb: info.verb, resource: info.resource });
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(body);
  };

  beforeAll(async () => {
    certificates = createTestCertificates();
    alice = certificates.client('/CN=alice/O=developers');
    const rules = new InMemoryRBACRules()
      .addClusterRole('pod-reader', [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
      ])
      .addClusterRole('healthz', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/healthz/*'] }])
      .addRole('default', 'pod-writer', [
        { verbs: ['create', 'delete'], apiGroups: [''], resources: ['pods'] },
      ])
      .bindClusterRole('developers-read-pods', 'pod-reader', [group('developers')])
      .bindClusterRole('everyone-healthz', 'healthz', [group('system:authenticated')])
      .bindRole('default', 'bob-writes', { kind: 'Role', name: 'pod-writer' }, [user('bob')]);
    const chain = buildHandlerChain(
      [
        withPanicRecovery(),
        withRequestInfo(),
        limiter,
        withRequestTimeout({ timeoutMs: 2000 }),
        withCors({ allowedOrigins: [/^https:\/\/dashboard\.test$/] }),
        withAuthentication({
          authenticators: [
            clientCertAuthenticator(),
            tokenFileAuthenticator({ content: 'bob-token,bob,1002\n' }),
            loopbackAuthenticator(loopbackToken),
          ],
        }),
        withAuthorization({ authorizer: new RBACAuthorizer(rules) }),
      ],
      api,
    );
    server = await serve(chain, {
      ...certificates.server,
      ca: certificates.ca,
      requestCert: true,
      rejectUnauthorized: false,
    });
  });
  afterAll(async () => {
    held.splice(0).forEach((release) => release());
    await server?.close();
    certificates?.dispose();
  });

  const asAlice = (options: SendOptions = {}): SendOptions => ({
    ...options,
    tls: { ca: certificates.ca, ...alice },
  });
  const asBob = (options: SendOptions = {}): SendOptions => ({
    ...options,
    headers: { Authorization: 'Bearer bob-token', ...(options.headers ?? {}) },
    tls: { ca: certificates.ca },
  });

  it('answers 401 without credentials', async () => {
    const response = await server.send('/api/v1/pods', { tls: { ca: certificates.ca } });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({
      kind: 'Status',
      reason: 'Unauthorized',
      message: 'Unauthorized',
      code: 401,
    });
    expect(
      (
        await server.send('/api/v1/pods', {
          headers: { Authorization: 'Bearer wrong' },
          tls: { ca: certificates.ca },
        })
      ).status,
    ).toBe(401);
  });

  it('serves a client-certificate user what RBAC grants and 403s the rest', async () => {
    const list = await server.send('/api/v1/namespaces/default/pods', asAlice());
    expect(list.status).toBe(200);
    expect(list.json).toEqual({ user: 'alice', verb: 'list', resource: 'pods' });
    expect((await server.send('/healthz/ping', asAlice())).status).toBe(200);

    const create = await server.send(
      '/api/v1/namespaces/default/pods',
      asAlice({ method: 'POST', body: '{}' }),
    );
    expect(create.status).toBe(403);
    expect(create.json?.message).toBe(
      'pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "default"',
    );
    const secret = await server.send('/api/v1/namespaces/default/secrets/token', asAlice());
    expect(secret.json?.message).toBe(
      'secrets "token" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "default"',
    );
    expect((await server.send('/metrics', asAlice())).json?.message).toBe(
      'forbidden: User "alice" cannot get path "/metrics"',
    );
  });

  it('serves a bearer-token user through a namespaced RoleBinding', async () => {
    expect(
      (await server.send('/api/v1/namespaces/default/pods', asBob({ method: 'POST', body: '{}' }))).status,
    ).toBe(200);
    const elsewhere = await server.send('/api/v1/namespaces/kube-system/pods/p', asBob({ method: 'DELETE' }));
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.json?.message).toBe(
      'pods "p" is forbidden: User "bob" cannot delete resource "pods" in API group "" in the namespace "kube-system"',
    );
  });

  it('lets the loopback client do anything as system:apiserver', async () => {
    const response = await server.send('/api/v1/nodes/n1', {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${loopbackToken}` },
      tls: { ca: certificates.ca },
    });
    expect(response.status).toBe(200);
    expect(response.json?.user).toBe('system:apiserver');
  });

  it('answers 429 over the in-flight limit, before authentication, and exempts watches', async () => {
    const first = server.send('/api/v1/namespaces/default/pods/hold', asAlice());
    const second = server.send('/api/v1/namespaces/default/pods/hold', asAlice());
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(limiter.inFlight()).toEqual({ readOnly: 2, mutating: 0 });

    const rejected = await server.send('/api/v1/namespaces/default/pods', { tls: { ca: certificates.ca } });
    expect(rejected.status).toBe(429);
    expect(rejected.headers['retry-after']).toBe('1');
    expect(rejected.json?.message).toBe('Too many requests, please try again later.');

    const watch = await server.send('/api/v1/namespaces/default/pods?watch=true', asAlice());
    expect(watch.status).toBe(200);
    expect(watch.json?.verb).toBe('watch');

    held.splice(0).forEach((release) => release());
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(limiter.inFlight()).toEqual({ readOnly: 0, mutating: 0 });
  });

  it('times out a slow request with 504 and answers CORS preflights without credentials', async () => {
    const slow = await server.send('/api/v1/namespaces/default/pods/slow?timeout=50ms', asAlice());
    expect(slow.status).toBe(504);
    expect(slow.json?.message).toBe('Timeout: request did not complete within the allotted timeout');

    const preflight = await server.send('/api/v1/pods', {
      method: 'OPTIONS',
      headers: { Origin: 'https://dashboard.test' },
      tls: { ca: certificates.ca },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://dashboard.test');
  });

  it('turns a handler failure into a 500 Status', async () => {
    const response = await server.send('/api/v1/namespaces/default/pods/boom', asAlice());
    expect(response.status).toBe(500);
    expect(response.json).toMatchObject({
      reason: 'InternalError',
      message: 'Internal error occurred: handler exploded',
    });
  });
});
