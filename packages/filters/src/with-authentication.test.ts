import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext } from './handler.js';
import { withAuthentication, type Authenticator } from './with-authentication.js';
import { tokenFileAuthenticator } from './token-file-authenticator.js';
import { generateLoopbackToken, loopbackAuthenticator } from './loopback-authenticator.js';
import { okHandler, serve, type TestServer } from './test-support.js';

const tokens = { content: 'alice-token,alice,1001,"dev,ops"\nbob-token,bob,1002\n' };

const reportUser = okHandler((request) => ({
  user: requestContext(request).user,
  authorization: request.headers.authorization ?? null,
}));

describe('withAuthentication', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('authenticates a bearer token from the token file, adds system:authenticated and strips the header', async () => {
    server = await serve(
      buildHandlerChain(
        [withAuthentication({ authenticators: [tokenFileAuthenticator(tokens)] })],
        reportUser,
      ),
    );
    const response = await server.send('/api/v1/pods', { headers: { Authorization: 'Bearer alice-token' } });
    expect(response.status).toBe(200);
    expect(response.json?.user).toEqual({
      name: 'alice',
      uid: '1001',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
    expect(response.json?.authorization).toBeNull();
    const bob = await server.send('/api/v1/pods', { headers: { Authorization: 'bearer bob-token' } });
    expect(bob.json?.user).toEqual({ name: 'bob', uid: '1002', groups: ['system:authenticated'] });
  });

  it('answers 401 Unauthorized for a missing or unknown token', async () => {
    server = await serve(
      buildHandlerChain(
        [withAuthentication({ authenticators: [tokenFileAuthenticator(tokens)] })],
        reportUser,
      ),
    );
    for (const headers of [
      {},
      { Authorization: 'Bearer nope' },
      { Authorization: 'Basic YTpi' },
      { Authorization: 'Bearer' },
    ]) {
      const response = await server.send('/api/v1/pods', { headers });
      expect(response.status).toBe(401);
      expect(response.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
  });

  it('lets requests without credentials in as system:anonymous when enabled, but not bad tokens', async () => {
    server = await serve(
      buildHandlerChain(
        [withAuthentication({ authenticators: [tokenFileAuthenticator(tokens)], anonymous: true })],
        reportUser,
      ),
    );
    const anonymous = await server.send('/healthz');
    expect(anonymous.status).toBe(200);
    expect(anonymous.json?.user).toEqual({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect((await server.send('/healthz', { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    expect(
      (await server.send('/healthz', { headers: { Authorization: 'Bearer alice-token' } })).json?.user,
    ).toMatchObject({
      name: 'alice',
    });
  });

  it('authenticates the loopback client as system:apiserver in system:masters', async () => {
    const token = generateLoopbackToken();
    const loopback = loopbackAuthenticator(token);
    server = await serve(
      buildHandlerChain(
        [withAuthentication({ authenticators: [tokenFileAuthenticator(tokens), loopback] })],
        reportUser,
      ),
    );
    const first = await server.send('/api/v1/namespaces', { headers: { Authorization: `Bearer ${token}` } });
    expect(first.status).toBe(200);
    const user = first.json?.user as { name: string; uid: string; groups: string[] };
    expect(user.name).toBe('system:apiserver');
    expect(user.groups).toEqual(['system:masters', 'system:authenticated']);
    expect(user.uid).toMatch(/^[0-9a-f-]{36}$/);
    // The uid is fixed for the authenticator, and the token file still works beside it.
    const second = await server.send('/api/v1/namespaces', { headers: { Authorization: `Bearer ${token}` } });
    expect((second.json?.user as { uid: string }).uid).toBe(user.uid);
    expect(
      (await server.send('/x', { headers: { Authorization: 'Bearer bob-token' } })).json?.user,
    ).toMatchObject({ name: 'bob' });
    expect((await server.send('/x', { headers: { Authorization: `Bearer ${token}x` } })).status).toBe(401);
    expect(generateLoopbackToken()).not.toBe(token);
  });

  it('tries authenticators in order and the first user wins', async () => {
    const calls: string[] = [];
    const named =
      (name: string, result: 'user' | 'none' | 'error'): Authenticator =>
      async () => {
        calls.push(name);
        if (result === 'error') throw new Error(`${name} failed`);
        return result === 'user' ? { name, groups: ['system:authenticated'] } : undefined;
      };
    server = await serve(
      buildHandlerChain(
        [
          withAuthentication({
            authenticators: [named('a', 'none'), named('b', 'error'), named('c', 'user'), named('d', 'user')],
          }),
        ],
        reportUser,
      ),
    );
    const response = await server.send('/x');
    expect(response.json?.user).toEqual({ name: 'c', groups: ['system:authenticated'] });
    expect(calls).toEqual(['a', 'b', 'c']);
  });
});
