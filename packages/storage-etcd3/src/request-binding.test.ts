import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { once } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cheapenHttp2RequestBinding } from './request-binding.js';

describe('cheapenHttp2RequestBinding', () => {
  let server: http2.Http2Server;
  let origin: string;
  const spy = { requests: 0 };
  const nodeBind = AsyncResource.prototype.bind;

  beforeAll(async () => {
    cheapenHttp2RequestBinding();
    server = http2.createServer((_request, response) => {
      spy.requests++;
      response.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  const get = (session: http2.ClientHttp2Session) =>
    new Promise<string>((resolve, reject) => {
      const stream = session.request({ ':path': '/' });
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (body += chunk));
      stream.on('end', () => resolve(body));
      stream.on('error', reject);
    });

  it('requests still work, before and after the session has connected, and Node’s bind is put back', async () => {
    const session = http2.connect(origin);
    // The first requests are queued until the socket connects (their bound callbacks run later).
    const early = await Promise.all([get(session), get(session)]);
    const late = await get(session);
    expect([...early, late]).toEqual(['ok', 'ok', 'ok']);
    expect(spy.requests).toBe(3);
    expect(AsyncResource.prototype.bind).toBe(nodeBind);
    session.close();
  });

  it('a request queued before the connection runs its connect callback in the async context it was made in', async () => {
    const storage = new AsyncLocalStorage<string>();
    const session = http2.connect(origin);
    const seen: Array<string | undefined> = [];
    await storage.run('caller', async () => {
      const stream = session.request({ ':path': '/' });
      stream.on('ready', () => seen.push(storage.getStore()));
      stream.resume();
      await once(stream, 'end');
    });
    expect(seen).toEqual(['caller']);
    session.close();
  });

  it('binds a queued request’s connect callback without the deprecated accessor Node’s bind builds', async () => {
    // Node's own bind (the cost avoided) defines `asyncResource` with two util.deprecate wrappers.
    expect(Object.getOwnPropertyDescriptor(nodeBind.call(new AsyncResource('probe'), () => undefined), 'asyncResource')).toBeDefined();
    const session = http2.connect(origin);
    const stream = session.request({ ':path': '/' });
    // Not connected yet: the bound callback waits in the session's queue.
    const queue = Object.getOwnPropertySymbols(session).find((symbol) => symbol.description === 'kPendingRequestCalls');
    const pending = (session as unknown as Record<symbol, unknown[]>)[queue as symbol];
    expect(pending).toHaveLength(1);
    expect(Object.getOwnPropertyDescriptor(pending?.[0], 'asyncResource')).toBeUndefined();
    stream.resume();
    await once(stream, 'end');
    session.close();
  });
});
