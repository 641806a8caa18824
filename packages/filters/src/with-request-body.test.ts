import { Agent, request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext, writeJson, type Handler } from './handler.js';
import { withRequestBody } from './with-request-body.js';
import { withRequestInfo } from './with-request-info.js';
import { serve, type TestServer } from './test-support.js';

/** Answers with the length of the body the filter read ahead (or -1 when none). */
const echoLength: Handler = (request, response) => {
  writeJson(response, 200, { length: requestContext(request).body?.length ?? -1 });
};

/** A chunked POST that sends `first` and then nothing; resolves with the status and body. */
function stalledPost(url: string, first: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}/api/v1/namespaces/a/configmaps`, {
      method: 'POST',
      headers: { 'Transfer-Encoding': 'chunked', 'Content-Type': 'application/json' },
    });
    outgoing.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.write(first);
  });
}

describe('withRequestBody', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('reads the body ahead of the handler, and passes bodiless requests through', async () => {
    server = await serve(buildHandlerChain([withRequestInfo(), withRequestBody()], echoLength));
    const posted = await server.send('/api/v1/namespaces/a/configmaps', { method: 'POST', body: '{"a":1}' });
    expect(posted.json).toEqual({ length: 7 });
    expect((await server.send('/api/v1/pods')).json).toEqual({ length: -1 });
  });

  it('hands a body that arrives in one chunk over as is, and one sent in several as their concatenation', async () => {
    let body: Buffer | undefined;
    server = await serve(
      buildHandlerChain([withRequestInfo(), withRequestBody()], (request, response) => {
        body = requestContext(request).body;
        writeJson(response, 200, {});
      }),
    );
    await server.send('/api/v1/namespaces/a/configmaps', { method: 'POST', body: '{"a":1}' });
    expect(body?.toString()).toBe('{"a":1}');
    await new Promise<void>((resolve, reject) => {
      const outgoing = httpRequest(`${server?.url ?? ''}/api/v1/namespaces/a/configmaps`, {
        method: 'POST',
        headers: { 'Transfer-Encoding': 'chunked', 'Content-Type': 'application/json' },
      });
      outgoing.on('response', (response) => response.resume().on('end', resolve));
      outgoing.on('error', reject);
      outgoing.write('{"b":');
      // The second chunk after the first was read: two 'data' events on the server.
      setTimeout(() => outgoing.end('2}'), 50);
    });
    expect(body?.toString()).toBe('{"b":2}');
  });

  it('answers 504 Timeout when the body does not arrive within its deadline', async () => {
    server = await serve(buildHandlerChain([withRequestInfo(), withRequestBody({ timeoutMs: 200 })], echoLength));
    const result = await stalledPost(server.url, '{');
    expect(result.status).toBe(504);
    expect(JSON.parse(result.body)).toMatchObject({
      kind: 'Status',
      reason: 'Timeout',
      message: 'Timeout: request did not complete within the allotted timeout',
    });
  });

  it('stops reading when the client goes away mid-body, with no abort signal made for the read', async () => {
    let reached = false;
    let settled: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (settled = resolve));
    let signalMade = false;
    const chain = buildHandlerChain([withRequestInfo(), withRequestBody()], () => {
      reached = true;
    });
    server = await serve((request, response) => {
      const context = requestContext(request, response);
      const descriptor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(context), 'signal');
      Object.defineProperty(context, 'signal', {
        get() {
          signalMade = true;
          return descriptor?.get?.call(context) as AbortSignal;
        },
      });
      const work = chain(request, response);
      void Promise.resolve(work).then(() => {
        expect(request.listenerCount('data')).toBe(0);
        settled();
      });
    });
    const outgoing = httpRequest(`${server.url}/api/v1/namespaces/a/configmaps`, {
      method: 'POST',
      headers: { 'Transfer-Encoding': 'chunked', 'Content-Type': 'application/json' },
    });
    outgoing.on('error', () => undefined);
    outgoing.write('{');
    await new Promise((resolve) => setTimeout(resolve, 100));
    outgoing.destroy();
    await done;
    expect(reached).toBe(false);
    expect(signalMade).toBe(false);
  });

  it('answers 413 past the size limit', async () => {
    server = await serve(buildHandlerChain([withRequestInfo(), withRequestBody({ limitBytes: 4 })], echoLength));
    const response = await server.send('/api/v1/namespaces/a/configmaps', { method: 'POST', body: '{"a":12}' });
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 4' });
  });

  it('reads and drops a refused body within the discard bound, so the client reads the 413 and its connection is reused', async () => {
    server = await serve(buildHandlerChain([withRequestInfo(), withRequestBody({ limitBytes: 1024 })], echoLength));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    /** A POST of `size` bytes, declared (Content-Length) or chunked in 16 KiB writes. */
    const post = (size: number, chunked: boolean) =>
      new Promise<{ status: number; reason: string }>((resolve, reject) => {
        const outgoing = httpRequest(`${server?.url ?? ''}/api/v1/namespaces/a/configmaps`, {
          method: 'POST',
          agent,
          headers: chunked ? { 'Content-Type': 'application/json' } : { 'Content-Type': 'application/json', 'Content-Length': size },
        });
        outgoing.on('socket', (socket) => sockets.add(socket));
        outgoing.on('response', (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, reason: (JSON.parse(body) as { reason?: string }).reason ?? '' }));
        });
        outgoing.on('error', reject);
        for (let sent = 0; sent < size; sent += 16_384) outgoing.write(Buffer.alloc(Math.min(16_384, size - sent), 'x'));
        outgoing.end();
      });
    try {
      // Bodies of 1.9x the limit (declared and chunked): each gets its 413, and all go over one connection.
      expect(await post(1946, false)).toEqual({ status: 413, reason: 'RequestEntityTooLarge' });
      expect(await post(1946, true)).toEqual({ status: 413, reason: 'RequestEntityTooLarge' });
      expect(await post(10, false)).toEqual({ status: 200, reason: '' });
      expect(sockets.size).toBe(1);
      // Past the limit and the discard bound: the 413 is sent with Connection: close, without reading the body.
      const declared = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const outgoing = httpRequest(`${server?.url ?? ''}/api/v1/namespaces/a/configmaps`, {
          method: 'POST',
          agent,
          headers: { 'Content-Type': 'application/json', 'Content-Length': 1 << 20 },
        });
        outgoing.on('response', (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, connection: response.headers.connection });
        });
        outgoing.on('error', reject);
        outgoing.write('{');
      });
      expect(declared).toEqual({ status: 413, connection: 'close' });
    } finally {
      agent.destroy();
    }
  });
});
