import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext, type Handler } from './handler.js';
import { withMaxInFlight } from './with-max-in-flight.js';
import { withRequestInfo } from './with-request-info.js';
import { serve, type TestServer } from './test-support.js';

/** A handler that holds each request until released, so the test controls concurrency. */
function gate() {
  const waiting: Array<() => void> = [];
  let arrived: (() => void) | undefined;
  const handler: Handler = async (_request, response) => {
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      arrived?.();
    });
    response.writeHead(200);
    response.end('done');
  };
  return {
    handler,
    /** Resolves once `count` requests are held. */
    held: (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (waiting.length >= count) resolve();
        };
        arrived = check;
        check();
      }),
    releaseAll: () => waiting.splice(0).forEach((release) => release()),
  };
}

describe('withMaxInFlight', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('rejects read-only requests over the limit with 429 and Retry-After: 1', async () => {
    const held = gate();
    const limiter = withMaxInFlight({ maxRequestsInFlight: 2, maxMutatingRequestsInFlight: 1 });
    server = await serve(buildHandlerChain([withRequestInfo(), limiter], held.handler));
    const first = server.send('/api/v1/pods');
    const second = server.send('/api/v1/namespaces/a/pods/p');
    await held.held(2);
    expect(limiter.inFlight()).toEqual({ readOnly: 2, mutating: 0 });

    const rejected = await server.send('/api/v1/pods');
    expect(rejected.status).toBe(429);
    expect(rejected.headers['retry-after']).toBe('1');
    expect(rejected.json).toMatchObject({
      kind: 'Status',
      reason: 'TooManyRequests',
      code: 429,
      message: 'Too many requests, please try again later.',
      details: { retryAfterSeconds: 1 },
    });

    // The mutating budget is separate.
    const create = server.send('/api/v1/namespaces/a/pods', { method: 'POST', body: '{}' });
    await held.held(3);
    expect(limiter.inFlight()).toEqual({ readOnly: 2, mutating: 1 });
    const secondCreate = await server.send('/api/v1/namespaces/a/configmaps/x', { method: 'DELETE' });
    expect(secondCreate.status).toBe(429);

    held.releaseAll();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect((await create).status).toBe(200);
    expect(limiter.inFlight()).toEqual({ readOnly: 0, mutating: 0 });

    const afterwards = server.send('/api/v1/pods');
    await held.held(1);
    held.releaseAll();
    expect((await afterwards).status).toBe(200);
  });

  it('exempts long-running requests', async () => {
    const held = gate();
    const limiter = withMaxInFlight({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1 });
    server = await serve(buildHandlerChain([withRequestInfo(), limiter], held.handler));
    const watches = [
      server.send('/api/v1/pods?watch=true'),
      server.send('/api/v1/watch/pods'),
      server.send('/api/v1/pods?watch=1'),
    ];
    await held.held(3);
    expect(limiter.inFlight()).toEqual({ readOnly: 0, mutating: 0 });
    const list = server.send('/api/v1/pods');
    await held.held(4);
    expect((await server.send('/api/v1/pods')).status).toBe(429);
    held.releaseAll();
    for (const watch of watches) expect((await watch).status).toBe(200);
    expect((await list).status).toBe(200);
  });

  it('exempts system:masters when the user is known', async () => {
    const held = gate();
    const limiter = withMaxInFlight({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1 });
    const asAdmin: Parameters<typeof buildHandlerChain>[0][number] = (next) => (request, response) => {
      if (request.headers['x-admin'])
        requestContext(request).user = { name: 'admin', groups: ['system:masters'] };
      return next(request, response);
    };
    server = await serve(buildHandlerChain([withRequestInfo(), asAdmin, limiter], held.handler));
    const list = server.send('/api/v1/pods');
    await held.held(1);
    expect((await server.send('/api/v1/pods')).status).toBe(429);
    const admin = server.send('/api/v1/pods', { headers: { 'x-admin': '1' } });
    await held.held(2);
    held.releaseAll();
    expect((await list).status).toBe(200);
    expect((await admin).status).toBe(200);
  });

  it('needs request info', async () => {
    server = await serve(buildHandlerChain([withMaxInFlight()], gate().handler));
    const response = await server.send('/api/v1/pods');
    expect(response.status).toBe(500);
    expect(response.json?.message).toBe('Internal error occurred: no RequestInfo found in the context');
  });
});
