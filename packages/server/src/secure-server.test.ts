import { connect, type ClientHttp2Session } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { requestContext, type Filter } from '@kapi/filters';
import { GenericAPIServerConfig, type GenericAPIServerOptions } from './generic-apiserver-config.js';
import type { GenericAPIServer } from './generic-apiserver.js';
import { ServerMetrics } from './metrics/index.js';
import { TestStorage, widget, widgetsPath } from './test-support/test-server.js';
import { widgetDefinition, widgetScheme } from './test-support/widget-scheme.js';
import { createSecureAPIServer } from './secure-server.js';
import { generateCertificateAuthority, issueServingCertificate } from './tls/certificates.js';

const ca = generateCertificateAuthority();
const serving = issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
const servers: GenericAPIServer[] = [];
const sessions: ClientHttp2Session[] = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) session.destroy();
  await Promise.all(servers.splice(0).map((server) => server.shutdown()));
});

async function startTLS(options: Partial<GenericAPIServerOptions> = {}): Promise<{ server: GenericAPIServer; url: string; storage: TestStorage }> {
  const storage = new TestStorage();
  const server = new GenericAPIServerConfig({
    scheme: widgetScheme(),
    storage: storage.factory,
    metrics: new ServerMetrics({ defaultMetrics: false }),
    ...options,
  })
    .complete()
    .new();
  server.installResource(widgetDefinition());
  servers.push(server);
  const { url } = await server.listen({ tls: { key: serving.privateKeyPem, cert: serving.certificatePem } });
  return { server, url, storage };
}

async function h2Session(url: string): Promise<ClientHttp2Session> {
  const session = connect(url, { ca: ca.certificatePem });
  sessions.push(session);
  session.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    session.once('remoteSettings', () => resolve());
    session.once('error', reject);
  });
  return session;
}

function h2Call(session: ClientHttp2Session, method: string, path: string, body?: unknown): Promise<{ headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, ...(body ? { 'content-type': 'application/json' } : {}) });
    let headers: Record<string, unknown> = {};
    let text = '';
    stream.on('response', (received) => (headers = { ...received }));
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => resolve({ headers, body: text }));
    stream.on('error', reject);
    stream.end(body ? JSON.stringify(body) : undefined);
  });
}

describe('the secure port over HTTP/2', () => {
  it("advertises Go's default of 250 concurrent streams when the limit is 0, and the configured one otherwise", async () => {
    const byDefault = await startTLS();
    expect((await h2Session(byDefault.url)).remoteSettings.maxConcurrentStreams).toBe(250);
    const aggregated = await startTLS({ http2MaxStreamsPerConnection: 1000 });
    const session = await h2Session(aggregated.url);
    expect(session.alpnProtocol).toBe('h2');
    expect(session.remoteSettings.maxConcurrentStreams).toBe(1000);
    expect(session.remoteSettings.initialWindowSize).toBe(256 * 1024);
  });

  it('serves HTTP/1.1 and HTTP/2 clients on the same port', async () => {
    const { url } = await startTLS();
    const h1 = await new Promise<{ version: string; status: number | undefined }>((resolve, reject) => {
      httpsRequest(`${url}/version`, { ca: ca.certificatePem, agent: false }, (response) => {
        response.resume();
        response.on('end', () => resolve({ version: response.httpVersion, status: response.statusCode }));
      })
        .on('error', reject)
        .end();
    });
    expect(h1).toEqual({ version: '1.1', status: 200 });
    const session = await h2Session(url);
    const created = await h2Call(session, 'POST', widgetsPath(), widget('over-h2'));
    expect(created.headers[':status']).toBe(201);
    expect((JSON.parse(created.body) as { metadata: { name: string } }).metadata.name).toBe('over-h2');
  });

  it('on shutdown sends GOAWAY, finishes the streams already open, and refuses new ones with 429 and no Connection header', async () => {
    let unblock: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    const slow: Filter = (next) => async (request, response) => {
      if (request.headers['x-slow']) await blocked;
      return next(request, response);
    };
    const { server, url } = await startTLS({ innermostFilters: [slow] });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const session = await h2Session(url);
      const goAway = new Promise<number>((resolve) => session.once('goaway', (code: number) => resolve(code)));
      const inFlight = new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': widgetsPath(), 'content-type': 'application/json', 'x-slow': '1' });
        stream.on('response', (headers) => resolve(Number(headers[':status'])));
        stream.on('error', reject);
        stream.resume();
        stream.end(JSON.stringify(widget('slow')));
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const shutdown = server.shutdown();
      expect(await goAway).toBe(0);
      // A session opened now is still answered, with the shutdown's 429.
      const refused = await h2Call(await h2Session(url), 'GET', widgetsPath());
      expect(refused.headers[':status']).toBe(429);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers.connection).toBeUndefined();
      expect((JSON.parse(refused.body) as { message: string }).message).toBe('The apiserver is shutting down, please try again later.');
      unblock();
      expect(await inFlight).toBe(201);
      await shutdown;
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a request timeout after the headers went out resets that stream only; the session serves on', async () => {
    const hang: Filter = (next) => async (request, response) => {
      if (!request.headers['x-hang']) return next(request, response);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.flushHeaders();
      await new Promise(() => undefined);
    };
    const { url } = await startTLS({ innermostFilters: [hang], requestTimeoutMs: 300 });
    const session = await h2Session(url);
    const reset = await new Promise<number>((resolve) => {
      const stream = session.request({ ':method': 'GET', ':path': widgetsPath(), 'x-hang': '1' });
      stream.on('error', () => undefined);
      stream.resume();
      stream.on('close', () => resolve(stream.rstCode ?? -1));
    });
    expect(reset).toBe(2); // INTERNAL_ERROR, as Go's server resets an aborted handler's stream.
    expect(session.destroyed).toBe(false);
    expect((await h2Call(session, 'GET', widgetsPath())).headers[':status']).toBe(200);
  });

  it("aborts the request context's signal when an HTTP/2 client cancels its stream", async () => {
    let aborted!: () => void;
    const sawAbort = new Promise<void>((resolve) => (aborted = resolve));
    let started!: () => void;
    const sawStart = new Promise<void>((resolve) => (started = resolve));
    const waitForClient: Filter = (next) => async (request, response) => {
      if (!request.url?.startsWith('/hold')) return next(request, response);
      const { signal } = requestContext(request, response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{}');
      started();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted();
    };
    const { url } = await startTLS({ innermostFilters: [waitForClient] });
    const session = await h2Session(url);
    const stream = session.request({ ':method': 'GET', ':path': '/hold' });
    stream.on('error', () => undefined);
    await sawStart;
    stream.close();
    await sawAbort;
  });

  it('ends a watch when its HTTP/2 client cancels the stream or goes away: its storage watch stops and the watchers gauge falls back', async () => {
    const { url, storage } = await startTLS();
    const session = await h2Session(url);
    const registered = async () => {
      const metrics = (await h2Call(session, 'GET', '/metrics')).body;
      return Number(/apiserver_registered_watchers\{group="example.com",version="v1",kind="Widget"\} (\d+)/.exec(metrics)?.[1] ?? 0);
    };
    const until = async (done: () => Promise<boolean> | boolean) => {
      for (let attempt = 0; attempt < 100 && !(await done()); attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const openWatch = async (on: ClientHttp2Session) => {
      const stream = on.request({ ':method': 'GET', ':path': `${widgetsPath()}?watch=true` });
      stream.on('error', () => undefined);
      stream.resume();
      const status = await new Promise((resolve) => stream.once('response', (headers) => resolve(headers[':status'])));
      expect(status).toBe(200);
      return stream;
    };
    const watches = [await openWatch(session), await openWatch(session)];
    await until(() => storage.activeWatches === 2);
    expect(storage.activeWatches).toBe(2);
    expect(await registered()).toBe(2);

    // RST_STREAM: the client cancels one watch; the other stays open.
    watches[0]!.close();
    await until(() => storage.activeWatches === 1);
    expect(storage.activeWatches).toBe(1);
    expect(await registered()).toBe(1);

    // The client's connection goes away with its last watch.
    const other = await h2Session(url);
    await openWatch(other);
    await until(() => storage.activeWatches === 2);
    other.destroy();
    watches[1]!.close();
    await until(async () => storage.activeWatches === 0 && (await registered()) === 0);
    expect(storage.activeWatches).toBe(0);
    expect(await registered()).toBe(0);
  });
});

describe('the secure port', () => {
  it('sets TCP_NODELAY on the connections it accepts, as Go and node:https do', () => {
    const secure = createSecureAPIServer({ key: serving.privateKeyPem, cert: serving.certificatePem, http2MaxStreamsPerConnection: 0 }, () => undefined);
    // net.Server reads `noDelay` from its options and sets it on each accepted socket.
    expect((secure.server as typeof secure.server & { noDelay?: boolean }).noDelay).toBe(true);
  });
});
