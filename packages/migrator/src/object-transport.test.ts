import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RestClient } from '@kapi/client';
import { generateCertificateAuthority, issueServingCertificate } from '@kapi/server';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isRetriable } from './retry.js';
import { Http2Transport } from './object-transport.js';

let tls: { ca: string; cert: string; key: string };
beforeAll(() => {
  const ca = generateCertificateAuthority();
  const serving = issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  tls = { ca: ca.certificatePem, cert: serving.certificatePem, key: serving.privateKeyPem };
}, 60_000);

interface Seen {
  method: string;
  url: string;
  protocol: string;
  authorization: string | undefined;
  body: string;
  accept?: string | undefined;
  contentType?: string | undefined;
}

/** Answers every request with its method, URL, HTTP version, Authorization and body, as JSON. */
function echo(seen: Seen[]) {
  return (request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        url: request.url ?? '',
        protocol: request.httpVersion,
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      response.statusCode = entry.url.includes('missing') ? 404 : 200;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(entry));
    });
  };
}

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function listen(server: Http2SecureServer | ReturnType<typeof createHttpsServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function transportFor(server: string, timeoutMs?: number): Http2Transport {
  const rest = new RestClient({ server, ca: tls.ca, token: 'secret' });
  const transport = new Http2Transport(rest, timeoutMs);
  closers.push(() => rest.close(), () => transport.close());
  return transport;
}

describe('Http2Transport', () => {
  it('sends PUTs and GETs with the token over one HTTP/2 connection and returns status and body', async () => {
    const seen: Seen[] = [];
    const server = createSecureServer({ ...tls, allowHTTP1: true }, echo(seen));
    const sessions: ServerHttp2Session[] = [];
    server.on('session', (session: ServerHttp2Session) => sessions.push(session));
    const transport = transportFor(await listen(server));
    const body = Buffer.from('{"metadata":{"name":"a"}}');
    const answers = await Promise.all([
      transport.raw({ method: 'PUT', path: '/api/v1/namespaces/x/configmaps/a', body }),
      transport.raw({ method: 'GET', path: '/api/v1/configmaps', query: { limit: 500, continue: undefined } }),
      transport.raw({ method: 'GET', path: '/api/v1/missing' }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 404]);
    expect(JSON.parse(answers[0]?.body.toString() ?? '')).toEqual({
      method: 'PUT',
      url: '/api/v1/namespaces/x/configmaps/a',
      protocol: '2.0',
      authorization: 'Bearer secret',
      body: body.toString(),
    });
    expect(seen.map((entry) => entry.url)).toContain('/api/v1/configmaps?limit=500');
    expect(sessions).toHaveLength(1);
  });

  it('connects again after the server closed the connection', async () => {
    const seen: Seen[] = [];
    const server = createSecureServer({ ...tls }, echo(seen));
    const sessions: ServerHttp2Session[] = [];
    server.on('session', (session: ServerHttp2Session) => sessions.push(session));
    const transport = transportFor(await listen(server));
    await transport.raw({ method: 'GET', path: '/one' });
    await new Promise<void>((resolve) => sessions[0]?.close(resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await transport.raw({ method: 'GET', path: '/two' });
    expect(again.statusCode).toBe(200);
    expect(sessions).toHaveLength(2);
  });

  it('fails a request whose stream the server resets with a retriable error', async () => {
    const server = createSecureServer({ ...tls });
    server.on('stream', (stream) => {
      stream.on('error', () => undefined);
      stream.close(2);
    });
    const transport = transportFor(await listen(server));
    const failure: unknown = await transport.raw({ method: 'PUT', path: '/reset', body: Buffer.from('{}') }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(isRetriable(failure)).toBe(true);
  });

  it('uses the REST client (HTTP/1.1) when the server does not speak HTTP/2', async () => {
    const seen: Seen[] = [];
    const transport = transportFor(await listen(createHttpsServer({ ...tls }, echo(seen))));
    const answer = await transport.raw({ method: 'PUT', path: '/api/v1/x', body: Buffer.from('{"a":1}') });
    expect(answer.statusCode).toBe(200);
    expect(seen).toEqual([{ method: 'PUT', url: '/api/v1/x', protocol: '1.1', authorization: 'Bearer secret', body: '{"a":1}' }]);
    await transport.raw({ method: 'GET', path: '/api/v1/y' });
    expect(seen.map((entry) => entry.protocol)).toEqual(['1.1', '1.1']);
  });

  it('sends the Accept and Content-Type of a request (a metadata-only page, a merge patch)', async () => {
    const seen: Seen[] = [];
    const server = createSecureServer({ ...tls }, (request, response) => {
      seen.push({ method: request.method, url: request.url, protocol: request.httpVersion, authorization: undefined, body: '', accept: request.headers.accept, contentType: request.headers['content-type'] });
      request.resume();
      request.on('end', () => response.end('{}'));
    });
    const transport = transportFor(await listen(server));
    await transport.raw({ method: 'GET', path: '/l', accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' });
    await transport.raw({ method: 'PATCH', path: '/o', contentType: 'application/merge-patch+json', body: Buffer.from('{}') });
    await transport.raw({ method: 'GET', path: '/plain' });
    expect(seen.map(({ method, accept, contentType }) => ({ method, accept, contentType }))).toEqual([
      { method: 'GET', accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json', contentType: undefined },
      { method: 'PATCH', accept: 'application/json', contentType: 'application/merge-patch+json' },
      { method: 'GET', accept: 'application/json', contentType: undefined },
    ]);
  });

  it('fails a request the server does not answer in time with a retriable timeout, and serves the next one', async () => {
    const server = createSecureServer({ ...tls }, (request, response) => {
      if (request.url === '/hang') return;
      response.end('{}');
    });
    const transport = transportFor(await listen(server), 200);
    const started = Date.now();
    const failure: unknown = await transport.raw({ method: 'GET', path: '/hang' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/timed out after 200 ms/);
    expect(isRetriable(failure)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await transport.raw({ method: 'GET', path: '/fine' })).statusCode).toBe(200);
  });

  it('times each request from its own start: a later one is not failed with an earlier one', async () => {
    const server = createSecureServer({ ...tls }, (request, response) => {
      if (request.url?.startsWith('/hang')) return;
      response.end('{}');
    });
    const transport = transportFor(await listen(server), 300);
    const started = Date.now();
    const failedAt = (path: string) => transport.raw({ method: 'GET', path }).then(
      () => undefined,
      () => Date.now() - started,
    );
    const first = failedAt('/hang-1');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = failedAt('/hang-2');
    expect((await transport.raw({ method: 'GET', path: '/fine' })).statusCode).toBe(200);
    const [firstAt, secondAt] = await Promise.all([first, second]);
    expect(firstAt).toBeGreaterThanOrEqual(290);
    expect(firstAt).toBeLessThan(480);
    expect(secondAt).toBeGreaterThanOrEqual(490);
  });

  it('offers the server flow-control windows of a whole page: 1 MiB a stream, 4 MiB the connection', async () => {
    const sessions: ServerHttp2Session[] = [];
    const server = createSecureServer({ ...tls }, (_request, response) => response.end('{}'));
    server.on('session', (session: ServerHttp2Session) => sessions.push(session));
    const transport = transportFor(await listen(server));
    await transport.raw({ method: 'GET', path: '/a' });
    const session = sessions[0];
    expect(session?.remoteSettings.initialWindowSize).toBe(1 << 20);
    // less the 2 bytes of the answer
    expect(session?.state.remoteWindowSize).toBe((4 << 20) - 2);
  });
});
