import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext, type Handler } from './handler.js';
import { withRequestInfo } from './with-request-info.js';
import { withRequestTimeout } from './with-request-timeout.js';
import { parseGoDuration } from './go-duration.js';
import { serve, type TestServer } from './test-support.js';

/** Waits until the request is aborted, then records it and tries to answer anyway. */
function waitForAbort(seen: { aborted: boolean; deadline?: number }): Handler {
  return async (request, response) => {
    const context = requestContext(request);
    if (context.deadline !== undefined) seen.deadline = context.deadline - context.receivedAt;
    await new Promise<void>((resolve) =>
      context.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    seen.aborted = true;
    response.writeHead(200);
    response.end('too late');
  };
}

describe('withRequestTimeout', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers 504 Timeout and aborts the context of a slow request', async () => {
    const seen = { aborted: false } as { aborted: boolean; deadline?: number };
    server = await serve(
      buildHandlerChain([withRequestInfo(), withRequestTimeout({ timeoutMs: 50 })], waitForAbort(seen)),
    );
    const response = await server.send('/api/v1/pods');
    expect(response.status).toBe(504);
    expect(response.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Timeout',
      code: 504,
      message: 'Timeout: request did not complete within the allotted timeout',
    });
    expect(response.headers['retry-after']).toBeUndefined();
    expect(seen.deadline).toBe(50);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.aborted).toBe(true);
  });

  it('lets fast requests through', async () => {
    server = await serve(
      buildHandlerChain(
        [withRequestInfo(), withRequestTimeout({ timeoutMs: 5000 })],
        (_request, response) => {
          response.writeHead(200);
          response.end('fast');
        },
      ),
    );
    const response = await server.send('/api/v1/pods');
    expect(response.status).toBe(200);
    expect(response.text).toBe('fast');
  });

  it('honours a shorter ?timeout= and ignores a longer one', async () => {
    const seen = { aborted: false } as { aborted: boolean; deadline?: number };
    server = await serve(
      buildHandlerChain([withRequestInfo(), withRequestTimeout({ timeoutMs: 60_000 })], waitForAbort(seen)),
    );
    const response = await server.send('/api/v1/pods?timeout=30ms');
    expect(response.status).toBe(504);
    expect(seen.deadline).toBe(30);

    const seenLong = { aborted: false } as { aborted: boolean; deadline?: number };
    await server.close();
    server = await serve(
      buildHandlerChain([withRequestInfo(), withRequestTimeout({ timeoutMs: 40 })], waitForAbort(seenLong)),
    );
    expect((await server.send('/api/v1/pods?timeout=1h')).status).toBe(504);
    expect(seenLong.deadline).toBe(40);
  });

  it('rejects a malformed ?timeout= with 400', async () => {
    server = await serve(
      buildHandlerChain([withRequestInfo(), withRequestTimeout()], waitForAbort({ aborted: false })),
    );
    const response = await server.send('/api/v1/pods?timeout=soon');
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      reason: 'BadRequest',
      message: 'invalid timeout specified in the request URL - time: invalid duration "soon"',
    });
  });

  it('does not time out long-running requests', async () => {
    server = await serve(
      buildHandlerChain(
        [withRequestInfo(), withRequestTimeout({ timeoutMs: 20 })],
        async (request, response) => {
          await new Promise((resolve) => setTimeout(resolve, 80));
          response.writeHead(200);
          response.end(String(requestContext(request).signal.aborted));
        },
      ),
    );
    const response = await server.send('/api/v1/pods?watch=true');
    expect(response.status).toBe(200);
    expect(response.text).toBe('false');
  });

  it('cuts the connection when the response had already started', async () => {
    server = await serve(
      buildHandlerChain(
        [withRequestInfo(), withRequestTimeout({ timeoutMs: 30 })],
        async (request, response) => {
          response.writeHead(200);
          response.write('partial');
          await new Promise((resolve) => setTimeout(resolve, 200));
          response.end();
        },
      ),
    );
    await expect(server.send('/api/v1/pods')).rejects.toThrow();
  });
});

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['-2s', -2000],
    ['250us', 0.25],
  ])('%s', (text, milliseconds) => {
    expect(parseGoDuration(text)).toBeCloseTo(milliseconds);
  });

  it.each([
    ['', 'invalid'],
    ['s', 'invalid'],
    ['10', 'missing unit'],
    ['1x', 'invalid'],
  ])('rejects %j', (text, what) => {
    expect(() => parseGoDuration(text)).toThrow(what);
  });
});
