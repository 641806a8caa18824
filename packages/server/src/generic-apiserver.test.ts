import { request as httpsRequest } from 'node:https';
import forge from 'node-forge';
import { afterEach, describe, expect, it } from 'vitest';
import { alwaysAllowAuthorizer, type Authenticator, type Authorizer, type Filter } from '@kapi/filters';
import type { KubeObject } from '@kapi/apimachinery';
import { GenericAPIServerConfig } from './generic-apiserver-config.js';
import { ServerMetrics } from './metrics/index.js';
import {
  TestStorage,
  startTestServer,
  widget,
  widgetsPath,
  type TestServer,
} from './test-support/test-server.js';
import { widgetDefinition, widgetScheme } from './test-support/widget-scheme.js';

const servers: TestServer[] = [];
async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const server = await startTestServer(...args);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('GenericAPIServer', () => {
  it('answers unknown paths with the upstream 404 Status and unknown subresources/scopes too', async () => {
    const api = await start();
    for (const path of [
      '/nothing',
      '/apis/example.com/v9/widgets',
      `${widgetsPath()}/a/scale`,
      '/apis/example.com/v1/widgets/a',
    ]) {
      const result = await api.call('GET', path);
      expect(result.status).toBe(404);
      expect(result.body).toMatchObject({
        kind: 'Status',
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
      });
    }
  });

  it('decodes protobuf bodies with the configured decoder, and refuses them with 415 without one', async () => {
    const protobufType = { 'Content-Type': 'application/vnd.kubernetes.protobuf' };
    // A stand-in decoder: the tests only check the routing of protobuf bodies (ProtobufRegistry has its own tests).
    const protobuf = {
      decode: (bytes: Uint8Array) =>
        JSON.parse(Buffer.from(bytes).subarray(4).toString('utf8')) as KubeObject,
    };
    const frame = (value: unknown) => `k8s\u0000${JSON.stringify(value)}`;
    const api = await start({ protobuf });
    expect((await api.call('POST', widgetsPath(), frame(widget('p')), protobufType)).status).toBe(201);
    const deleted = await api.call(
      'DELETE',
      `${widgetsPath()}/p`,
      frame({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } }),
      protobufType,
    );
    expect(deleted.status).toBe(409);
    const plain = await start();
    const refused = await plain.call('POST', widgetsPath(), frame(widget('p')), protobufType);
    expect(refused.status).toBe(415);
    expect(await plain.storage.keys()).toEqual([]);
  });

  it('uninstalls a resource: routes and discovery go, watches end, storage closes, reinstall works', async () => {
    const api = await start();
    await api.call('POST', widgetsPath(), widget('a'));
    const watch = await fetch(`${api.url}${widgetsPath()}?watch=1`);
    const reader = watch.body!.getReader();
    await reader.read();
    await api.server.uninstallResource('example.com', 'widgets');
    for (;;) if ((await reader.read()).done) break;
    expect(api.storage.closedStores).toBe(1);
    expect((await api.call('GET', widgetsPath())).status).toBe(404);
    expect(api.server.installedResources()).toEqual([]);
    api.server.installResource(widgetDefinition());
    expect((await api.call('GET', `${widgetsPath()}/a`)).status).toBe(200);
  });

  it('serves cluster-scoped resources without a namespace segment', async () => {
    const api = await start({ definition: { resource: 'gizmos', namespaced: false, versions: ['v1'] } });
    const created = await api.call('POST', '/apis/example.com/v1/gizmos', widget('g'));
    expect(created.status).toBe(201);
    expect((created.body['metadata'] as Record<string, unknown>)['namespace']).toBeUndefined();
    expect(await api.storage.keys()).toEqual(['/registry/gizmos/g']);
    expect((await api.call('GET', '/apis/example.com/v1/gizmos/g')).status).toBe(200);
    expect((await api.call('GET', '/apis/example.com/v1/namespaces/default/gizmos/g')).status).toBe(404);
    expect((await api.call('DELETE', '/apis/example.com/v1/gizmos/g')).status).toBe(200);
  });

  it('refuses verbs the resource does not serve with 405', async () => {
    const api = await start({ definition: { verbs: ['get', 'list'] } });
    const result = await api.call('POST', widgetsPath(), widget('a'));
    expect(result.status).toBe(405);
    expect(result.body['reason']).toBe('MethodNotAllowed');
    const acrossNamespaces = await start();
    for (const method of ['POST', 'DELETE']) {
      const response = await acrossNamespaces.call(
        method,
        '/apis/example.com/v1/widgets',
        method === 'POST' ? widget('a') : undefined,
      );
      expect(response.status).toBe(405);
    }
    expect(await acrossNamespaces.storage.keys()).toEqual([]);
  });

  it('delegates what it does not serve and lists both servers in discovery', async () => {
    const storage = new TestStorage();
    const scheme = widgetScheme();
    const metrics = new ServerMetrics({ defaultMetrics: false });
    const inner = new GenericAPIServerConfig({ scheme, storage: storage.factory, metrics }).complete().new();
    inner.installResource(widgetDefinition());
    const outer = new GenericAPIServerConfig({ scheme, storage: storage.factory }).complete().new(inner);
    outer.installAPIGroup([
      widgetDefinition({ group: 'other.example.com', resource: 'gadgets', kind: 'Widget', versions: ['v1'] }),
    ]);
    const { url } = await outer.listen();
    try {
      const created = await fetch(`${url}${widgetsPath()}`, {
        method: 'POST',
        body: JSON.stringify(widget('a')),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(created.status).toBe(201);
      const groups = (await (await fetch(`${url}/apis`)).json()) as { groups: Array<{ name: string }> };
      expect(groups.groups.map((group) => group.name).sort()).toEqual(['example.com', 'other.example.com']);
      const resources = (await (await fetch(`${url}/apis/example.com/v1`)).json()) as {
        resources: Array<{ name: string; storageVersionHash?: string }>;
      };
      expect(resources.resources.map((resource) => resource.name)).toContain('widgets');
      expect((await fetch(`${url}/nothing`)).status).toBe(404);
      expect(outer.installedResources().map((resource) => resource.definition.resource)).toEqual([
        'gadgets',
        'widgets',
      ]);
      expect(outer.storageVersionInfos()[1]).toEqual({
        groupResource: { group: 'example.com', resource: 'widgets' },
        kind: 'Widget',
        encodingVersion: { group: 'example.com', version: 'v1' },
        decodableVersions: [
          { group: 'example.com', version: 'v1' },
          { group: 'example.com', version: 'v1beta1' },
        ],
      });
    } finally {
      await outer.shutdown();
    }
    expect(storage.closedStores).toBe(2);
  });

  it('serves /version, /healthz, /readyz with post-start hooks, and /metrics with request counts', async () => {
    let release!: () => void;
    const api = await startTestServer();
    servers.push(api);
    expect((await api.call('GET', '/version')).body).toMatchObject({
      gitVersion: expect.stringMatching(/^v1\./),
    });
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${api.url}/metrics`)).text()).toContain(
      'kapi_health_check{name="ping",type="healthz"} 1',
    );
    await api.call('GET', widgetsPath());
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(metrics).toMatch(/apiserver_request_total\{[^}]*verb="LIST"[^}]*resource="widgets"[^}]*\} 1/);
    expect(metrics).toMatch(
      /etcd_request_duration_seconds_count\{[^}]*operation="list"[^}]*type="widgets.example.com"[^}]*\} 1/,
    );

    const server = new GenericAPIServerConfig({
      scheme: widgetScheme(),
      storage: new TestStorage().factory,
      metrics: new ServerMetrics({ defaultMetrics: false }),
    })
      .complete()
      .new();
    server.addPostStartHook('test-hook', () => new Promise<void>((resolve) => (release = resolve)));
    const { url } = await server.listen();
    try {
      const pending = await fetch(`${url}/readyz?verbose`);
      expect(pending.status).toBe(500);
      expect(await pending.text()).toContain('poststarthook/test-hook');
      release();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(server.loopbackClient).toEqual({ url, bearerToken: server.options.loopbackToken });
    } finally {
      await server.shutdown();
    }
  });

  it('serves OpenAPI v2 and v3 built from the scheme', async () => {
    const api = await start();
    const v2 = (await api.call('GET', '/openapi/v2')).body as { definitions: Record<string, unknown> };
    expect(Object.keys(v2.definitions)).toContain('com.example.v1.Widget');
    const v3 = (await api.call('GET', '/openapi/v3')).body as { paths: Record<string, unknown> };
    expect(Object.keys(v3.paths)).toContain('apis/example.com/v1');
  });

  it('authenticates with the configured authenticators and lets the loopback client in', async () => {
    const api = await start({
      authenticators: [
        (request) =>
          request.headers.authorization === 'Bearer user' ? { name: 'bob', groups: [] } : undefined,
      ],
      authorizer: alwaysAllowAuthorizer,
    });
    expect((await api.call('GET', widgetsPath())).status).toBe(401);
    expect((await api.call('GET', widgetsPath(), undefined, { Authorization: 'Bearer user' })).status).toBe(
      200,
    );
    const loopback = api.server.loopbackClient;
    expect(loopback.url).toBe(api.url);
    const response = await fetch(`${loopback.url}${widgetsPath()}`, {
      headers: { Authorization: `Bearer ${loopback.bearerToken}` },
    });
    expect(response.status).toBe(200);
  });

  it('runs authentication, authorization (one authorizer) and innermost filters in order', async () => {
    const seen: string[] = [];
    const authenticator: Authenticator = (request) => {
      seen.push('authn');
      return request.headers.authorization === 'Bearer good' ? { name: 'alice', groups: [] } : undefined;
    };
    const authorizer: Authorizer = {
      authorize: (attributes) => {
        seen.push('authz');
        return attributes.verb === 'delete' ? { decision: 'deny', reason: 'no' } : { decision: 'allow' };
      },
    };
    const barrier: Filter = (next) => (request, response) => {
      seen.push('barrier');
      return next(request, response);
    };
    const api = await start({ authenticators: [authenticator], authorizer, innermostFilters: [barrier] });
    expect((await api.call('GET', widgetsPath())).status).toBe(401);
    const auth = { Authorization: 'Bearer good' };
    expect((await api.call('POST', widgetsPath(), widget('a'), auth)).status).toBe(201);
    const denied = await api.call('DELETE', `${widgetsPath()}/a`, undefined, auth);
    expect(denied.status).toBe(403);
    expect(denied.body['message']).toMatch(/^widgets\.example\.com "a" is forbidden: User "alice" cannot delete resource "widgets" .*: no$/);
    expect(seen).toEqual(['authn', 'authn', 'authz', 'barrier', 'authn', 'authz']);
  });

  it('limits requests in flight, times out slow requests and answers CORS preflight', async () => {
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    const slow: Filter = (next) => async (request, response) => {
      if (request.headers['x-slow']) await blocked;
      return next(request, response);
    };
    const api = await start({
      maxRequestsInFlight: 1,
      requestTimeoutMs: 300,
      innermostFilters: [slow],
      corsAllowedOrigins: ['^https://ok\\.example$'],
    });
    const first = api.call('GET', widgetsPath(), undefined, { 'x-slow': '1' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await api.call('GET', widgetsPath());
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    const timedOut = await first;
    expect(timedOut.status).toBe(504);
    expect(timedOut.body['reason']).toBe('Timeout');
    unblock();

    const preflight = await fetch(`${api.url}${widgetsPath()}`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://ok.example' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://ok.example');
    const other = await fetch(`${api.url}${widgetsPath()}`, { headers: { Origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps serving during the shutdown delay while readyz fails', async () => {
    const api = await start({ shutdownDelayMs: 300 });
    const shutdown = api.server.shutdown();
    expect((await fetch(`${api.url}/readyz`)).status).toBe(500);
    const during = await api.call('GET', widgetsPath());
    expect(during.status).toBe(200);
    expect(during.headers.get('cache-control')).toBe('no-cache, private');
    await shutdown;
  });

  it('shuts down gracefully: readyz fails, new requests get 429, in-flight requests finish', async () => {
    let unblock!: () => void;
    let arrived!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const slow: Filter = (next) => async (request, response) => {
      if (request.headers['x-slow']) {
        arrived();
        await blocked;
      }
      return next(request, response);
    };
    const api = await start({ innermostFilters: [slow] });
    const inFlight = api.call('POST', widgetsPath(), widget('a'), { 'x-slow': '1' });
    // The shutdown starts once the slow request is in flight (a fixed sleep lost that race on a loaded machine).
    await reached;
    const shutdown = api.server.shutdown();
    const refused = await api.call('GET', widgetsPath());
    expect(refused.status).toBe(429);
    expect(refused.body['message']).toBe('The apiserver is shutting down, please try again later.');
    expect((await fetch(`${api.url}/readyz`)).status).toBe(500);
    unblock();
    expect((await inFlight).status).toBe(201);
    await shutdown;
    expect(api.storage.closedStores).toBe(1);
  });

  it('serves HTTPS with a given key and certificate', async () => {
    const keys = forge.pki.rsa.generateKeyPair(1024);
    const certificate = forge.pki.createCertificate();
    certificate.publicKey = keys.publicKey;
    certificate.serialNumber = '01';
    certificate.validity.notBefore = new Date(Date.now() - 60_000);
    certificate.validity.notAfter = new Date(Date.now() + 3_600_000);
    certificate.setSubject([{ name: 'commonName', value: '127.0.0.1' }]);
    certificate.setIssuer([{ name: 'commonName', value: '127.0.0.1' }]);
    certificate.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]);
    certificate.sign(keys.privateKey, forge.md.sha256.create());
    const cert = forge.pki.certificateToPem(certificate);
    const server = new GenericAPIServerConfig({
      scheme: widgetScheme(),
      storage: new TestStorage().factory,
      metrics: new ServerMetrics({ defaultMetrics: false }),
    })
      .complete()
      .new();
    const { url } = await server.listen({ tls: { key: forge.pki.privateKeyToPem(keys.privateKey), cert } });
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const body = await new Promise<string>((resolve, reject) => {
        httpsRequest(`${url}/version`, { ca: cert }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });
      expect(JSON.parse(body)).toHaveProperty('gitVersion');
      expect(server.loopbackClient.caData).toBe(cert);
    } finally {
      await server.shutdown();
    }
  });
});
