import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain } from './handler.js';
import { withCors } from './with-cors.js';
import { okHandler, serve, type TestServer } from './test-support.js';

describe('withCors', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('echoes an allowed origin with the default allow headers', async () => {
    server = await serve(
      buildHandlerChain([withCors({ allowedOrigins: [/^https?:\/\/localhost(:\d+)?$/] })], okHandler()),
    );
    const response = await server.send('/api/v1/pods', { headers: { Origin: 'http://localhost:8001' } });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('http://localhost:8001');
    expect(response.headers['access-control-allow-methods']).toBe('POST, GET, OPTIONS, PUT, DELETE, PATCH');
    expect(response.headers['access-control-allow-headers']).toBe(
      'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
    );
    expect(response.headers['access-control-expose-headers']).toBe('Date');
    expect(response.headers['access-control-allow-credentials']).toBe('true');
  });

  it('answers an allowed preflight itself with 204', async () => {
    let reached = false;
    server = await serve(
      buildHandlerChain([withCors({ allowedOrigins: [/example\.com$/] })], (_request, response) => {
        reached = true;
        response.end();
      }),
    );
    const response = await server.send('/api/v1/pods', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com' },
    });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(reached).toBe(false);
  });

  it('passes other origins and requests without Origin through untouched', async () => {
    server = await serve(
      buildHandlerChain([withCors({ allowedOrigins: [/^https:\/\/good\.test$/g] })], okHandler()),
    );
    const denied = await server.send('/x', { headers: { Origin: 'https://evil.test' } });
    expect(denied.status).toBe(200);
    expect(denied.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await server.send('/x', {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.test' },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect((await server.send('/x')).headers['access-control-allow-origin']).toBeUndefined();
    // A global pattern matches on every request, not every other one.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const allowed = await server.send('/x', { headers: { Origin: 'https://good.test' } });
      expect(allowed.headers['access-control-allow-origin']).toBe('https://good.test');
    }
  });

  it('does nothing when no origins are allowed, and takes custom lists', async () => {
    server = await serve(buildHandlerChain([withCors({ allowedOrigins: [] })], okHandler()));
    expect(
      (await server.send('/x', { headers: { Origin: 'http://a' } })).headers['access-control-allow-origin'],
    ).toBeUndefined();
    await server.close();
    server = await serve(
      buildHandlerChain(
        [
          withCors({
            allowedOrigins: [/.*/],
            allowedMethods: ['GET'],
            allowedHeaders: ['X-A'],
            exposedHeaders: ['Warning'],
            allowCredentials: 'false',
          }),
        ],
        okHandler(),
      ),
    );
    const response = await server.send('/x', { headers: { Origin: 'http://a' } });
    expect(response.headers['access-control-allow-methods']).toBe('GET');
    expect(response.headers['access-control-allow-headers']).toBe('X-A');
    expect(response.headers['access-control-expose-headers']).toBe('Warning');
    expect(response.headers['access-control-allow-credentials']).toBe('false');
  });
});
