import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, Http2ServerRequest, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isWatchStream } from './h2-watch-exchange.js';
import { createSecureAPIServer, type SecureServer } from './secure-server.js';
import { generateCertificateAuthority, issueServingCertificate } from './tls/certificates.js';

const ca = generateCertificateAuthority();
const serving = issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
const opened: Array<{ secure: SecureServer; session: ClientHttp2Session }> = [];

afterEach(async () => {
  for (const { secure, session } of opened.splice(0)) {
    session.destroy();
    await secure.close();
  }
});

/** The secure port with `listener`, and an h2 session to it. */
async function serve(listener: (request: IncomingMessage, response: ServerResponse) => void): Promise<ClientHttp2Session> {
  const secure = createSecureAPIServer({ key: serving.privateKeyPem, cert: serving.certificatePem, http2MaxStreamsPerConnection: 0 }, listener);
  await new Promise<void>((resolve) => secure.server.listen(0, '127.0.0.1', resolve));
  const session = connect(`https://127.0.0.1:${(secure.server.address() as AddressInfo).port}`, { ca: ca.certificatePem });
  session.on('error', () => undefined);
  opened.push({ secure, session });
  return session;
}

/** The response headers and body of a stream, once it ends. */
function received(stream: ClientHttp2Stream): Promise<{ headers: Record<string, unknown>; body: string; chunks: string[] }> {
  return new Promise((resolve, reject) => {
    let headers: Record<string, unknown> = {};
    const chunks: string[] = [];
    stream.on('response', (sent) => (headers = { ...sent }));
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => chunks.push(chunk));
    stream.on('end', () => resolve({ headers, body: chunks.join(''), chunks }));
    stream.on('error', reject);
  });
}

describe('isWatchStream', () => {
  it.each([
    ['GET', '/api/v1/namespaces/default/configmaps?watch=true', true],
    ['GET', '/apis/apps/v1/deployments?resourceVersion=5&watch=1&allowWatchBookmarks=true', true],
    ['GET', '/api/v1/watch/namespaces/default/pods', true],
    ['GET', '/apis/example.com/v1/watch/widgets/one', true],
    ['GET', '/api/v1/namespaces/default/configmaps?watch=false', false],
    ['GET', '/api/v1/namespaces/default/configmaps?nowatch=true', false],
    ['GET', '/api/v1/namespaces/watch/configmaps', false],
    ['POST', '/api/v1/namespaces/default/configmaps?watch=true', false],
  ])('%s %s: %s', (method, path, watch) => {
    expect(isWatchStream({ ':method': method, ':path': path })).toBe(watch);
  });

  it('leaves a request with an Expect header to node', () => {
    expect(isWatchStream({ ':method': 'GET', ':path': '/api/v1/pods?watch=true', expect: '100-continue' })).toBe(false);
  });
});

describe('a watch over HTTP/2', () => {
  it("reaches the listener without node's compatibility objects, with the request as node:http shows it", async () => {
    const seen: Array<{ compat: boolean; method?: string; url?: string; version: number; header: unknown; address?: string }> = [];
    const session = await serve((request, response) => {
      seen.push({
        compat: request instanceof Http2ServerRequest,
        ...(request.method !== undefined ? { method: request.method } : {}),
        ...(request.url !== undefined ? { url: request.url } : {}),
        version: request.httpVersionMajor,
        header: request.headers['x-test'],
        ...(request.socket?.remoteAddress ? { address: request.socket.remoteAddress } : {}),
      });
      response.end();
    });
    await received(session.request({ ':path': '/apis/g/v1/things?watch=true', 'x-test': 'a' }).end());
    await received(session.request({ ':path': '/apis/g/v1/things', 'x-test': 'b' }).end());
    expect(seen).toEqual([
      { compat: false, method: 'GET', url: '/apis/g/v1/things?watch=true', version: 2, header: 'a', address: '127.0.0.1' },
      { compat: true, method: 'GET', url: '/apis/g/v1/things', version: 2, header: 'b', address: '127.0.0.1' },
    ]);
  });

  it('sends the status with the headers set before and in writeHead, at flushHeaders, then the lines written', async () => {
    let events: string[] = [];
    const session = await serve((_request, response) => {
      response.setHeader('X-Early', 'one');
      response.setHeader('Connection', 'close');
      response.setHeader('Transfer-Encoding', 'chunked');
      response.writeHead(201, { 'Content-Type': 'application/json', 'X-Late': ['two', 'three'] });
      response.flushHeaders();
      expect(response.headersSent).toBe(true);
      response.on('finish', () => events.push('finish'));
      response.once('close', () => events.push(`close ended=${response.writableEnded}`));
      setTimeout(() => {
        expect(response.write('{"a":1}\n')).toBe(true);
        response.end('{"b":2}\n');
      }, 50);
    });
    const stream = session.request({ ':path': '/x?watch=1' });
    const headersFirst = new Promise<boolean>((resolve) => stream.once('response', () => resolve(stream.readableLength === 0)));
    const answer = await received(stream.end());
    expect(await headersFirst).toBe(true);
    expect(answer.headers).toMatchObject({ ':status': 201, 'content-type': 'application/json', 'x-early': 'one', 'x-late': 'two, three' });
    expect(answer.headers['date']).toBeTypeOf('string');
    expect(answer.headers).not.toHaveProperty('connection');
    expect(answer.body).toBe('{"a":1}\n{"b":2}\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['finish', 'close ended=true']);
    events = [];
  });

  it('sends headers that go out implicitly (flushHeaders, write, end) through writeHead, as a wrapping filter expects', async () => {
    const wrapped: string[] = [];
    const session = await serve((request, response) => {
      const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
      (response as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
        wrapped.push(`${request.headers['x-send'] as string} ${String(args[0])}`);
        return writeHead(...args);
      };
      response.statusCode = 202;
      if (request.headers['x-send'] === 'flush') {
        response.flushHeaders();
        response.end('{}');
      } else if (request.headers['x-send'] === 'write') {
        response.write('{}');
        response.end();
      } else response.end('{}');
    });
    for (const send of ['flush', 'write', 'end']) {
      const answer = await received(session.request({ ':path': '/x?watch=true', 'x-send': send }).end());
      expect(answer.headers[':status']).toBe(202);
    }
    expect(wrapped).toEqual(['flush 202', 'write 202', 'end 202']);
  });

  it("answers a refusal written with writeHead and end (a Status with its length) like node's own response", async () => {
    const body = JSON.stringify({ kind: 'Status', code: 401 });
    const session = await serve((_request, response) => {
      response.writeHead(401, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      response.end(body);
    });
    const answer = await received(session.request({ ':path': '/x?watch=true' }).end());
    expect(answer.headers).toMatchObject({ ':status': 401, 'content-length': String(body.length) });
    expect(JSON.parse(answer.body)).toEqual({ kind: 'Status', code: 401 });
  });

  it('tells the handler that the client cancelled: close without end, and writes are refused', async () => {
    let closed!: (state: { ended: boolean; destroyed: boolean; written: boolean }) => void;
    const sawClose = new Promise<{ ended: boolean; destroyed: boolean; written: boolean }>((resolve) => (closed = resolve));
    const session = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{}\n');
      response.on('close', () => closed({ ended: response.writableEnded, destroyed: response.destroyed, written: response.write('{}\n') }));
    });
    const stream = session.request({ ':path': '/x?watch=true' });
    stream.on('error', () => undefined);
    stream.once('data', () => stream.close());
    expect(await sawClose).toEqual({ ended: false, destroyed: true, written: false });
  });

  it("calls close and finish listeners once, with the request or response as `this` (as node's emitters do), the request's first; off removes one", async () => {
    const calls: string[] = [];
    let closed!: () => void;
    const sawClose = new Promise<void>((resolve) => (closed = resolve));
    function shared(this: unknown, ...args: unknown[]): void {
      calls.push(`${this === seen.request ? 'request' : this === seen.response ? 'response' : 'other'}/${args.length}`);
    }
    const removed = () => calls.push('removed');
    const seen: { request?: unknown; response?: unknown } = {};
    const session = await serve((request, response) => {
      seen.request = request;
      seen.response = response;
      response.on('finish', shared);
      response.once('close', removed);
      response.prependListener('close', shared);
      response.on('close', closed);
      request.on('close', shared);
      response.off('close', removed);
      expect([request.listenerCount('close'), response.listenerCount('close')]).toEqual([1, 3]);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{}\n');
    });
    const stream = session.request({ ':path': '/x?watch=true' });
    stream.on('error', () => undefined);
    stream.once('data', () => stream.close());
    await sawClose;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual(['request/0', 'response/0', 'response/0']);
  });

  it('answers nothing, and throws nothing, to a client that reset the stream before the headers', async () => {
    let settled!: (outcome: string) => void;
    const outcome = new Promise<string>((resolve) => (settled = resolve));
    const session = await serve((_request, response) => {
      response.on('close', () => {
        try {
          response.writeHead(200, { 'Content-Type': 'application/json' });
          response.flushHeaders();
          const written = response.write('{}\n');
          response.end();
          settled(`written=${written} sent=${response.headersSent} ended=${response.writableEnded}`);
        } catch (error) {
          settled(`threw ${(error as Error).message}`);
        }
      });
    });
    const stream = session.request({ ':path': '/x?watch=true' });
    stream.on('error', () => undefined);
    stream.close();
    expect(await outcome).toBe('written=false sent=false ended=true');
  });

  it('reads a body sent with the GET through the request, by events or for await', async () => {
    const session = await serve((request, response) => {
      if (request.headers['x-read'] === 'events') {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => response.end(Buffer.concat(chunks)));
        return;
      }
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        response.end(Buffer.concat(chunks));
      })();
    });
    for (const read of ['events', 'iterator']) {
      const answer = await received(session.request({ ':path': '/x?watch=true', 'content-type': 'text/plain', 'x-read': read }, { endStream: false }).end(`sent by ${read}`));
      expect(answer.body).toBe(`sent by ${read}`);
    }
  });
});
