import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext } from './handler.js';
import { withAuthentication } from './with-authentication.js';
import { withImpersonation } from './with-impersonation.js';
import { withRequestInfo } from './with-request-info.js';
import { tokenFileAuthenticator } from './token-file-authenticator.js';
import type { AuthorizationAttributes, Authorizer } from './authorizer.js';
import { okHandler, serve, type TestServer } from './test-support.js';

const tokens = tokenFileAuthenticator({ content: 'root-token,root,0\nbob-token,bob,2\n' });

describe('withImpersonation', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** root may impersonate anything; everyone else nothing. Records every question. */
  async function start(asked: AuthorizationAttributes[] = []) {
    const authorizer: Authorizer = {
      authorize: (attributes) => {
        asked.push(attributes);
        return { decision: attributes.user?.name === 'root' ? 'allow' : 'noOpinion' };
      },
    };
    server = await serve(
      buildHandlerChain(
        [withRequestInfo(), withAuthentication({ authenticators: [tokens] }), withImpersonation({ authorizer })],
        okHandler((request) => ({
          user: requestContext(request).user,
          leftover: Object.keys(request.headers).filter((name) => name.startsWith('impersonate-')),
        })),
      ),
    );
    return server;
  }

  const as = (headers: Record<string, string | string[]>) => ({ headers: { Authorization: 'Bearer root-token', ...headers } as Record<string, string> });

  it('runs the request as the impersonated user with system:authenticated added, headers removed', async () => {
    const asked: AuthorizationAttributes[] = [];
    const api = await start(asked);
    const answer = await api.send('/api/v1/namespaces/default/pods', as({ 'Impersonate-User': 'alice', 'Impersonate-Group': ['devs', 'ops'], 'Impersonate-Uid': 'u-1', 'Impersonate-Extra-Acme.com%2Fteam': 'blue' }));
    expect(answer.status).toBe(200);
    expect(answer.json?.['user']).toEqual({ name: 'alice', uid: 'u-1', groups: ['devs', 'ops', 'system:authenticated'], extra: { 'acme.com/team': ['blue'] } });
    expect(answer.json?.['leftover']).toEqual([]);
    expect(asked.map((a) => [a.verb, a.apiGroup, a.resource, a.subresource, a.name])).toEqual([
      ['impersonate', '', 'users', '', 'alice'],
      ['impersonate', '', 'groups', '', 'devs'],
      ['impersonate', '', 'groups', '', 'ops'],
      ['impersonate', 'authentication.k8s.io', 'userextras', 'acme.com/team', 'blue'],
      ['impersonate', 'authentication.k8s.io', 'uids', '', 'u-1'],
    ]);
  });

  it('a service account name gets its groups; system:anonymous gets system:unauthenticated', async () => {
    const api = await start();
    const account = await api.send('/api', as({ 'Impersonate-User': 'system:serviceaccount:ci:builder' }));
    expect(account.json?.['user']).toEqual({
      name: 'system:serviceaccount:ci:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
    });
    const anonymous = await api.send('/api', as({ 'Impersonate-User': 'system:anonymous' }));
    expect(anonymous.json?.['user']).toEqual({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('refuses without the impersonate verb (403) and groups without a user (400)', async () => {
    const api = await start();
    const denied = await api.send('/api', { headers: { Authorization: 'Bearer bob-token', 'Impersonate-User': 'system:serviceaccount:ci:builder' } });
    expect(denied.status).toBe(403);
    expect(denied.json?.['message']).toBe(
      'serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ci"',
    );
    const groupOnly = await api.send('/api', as({ 'Impersonate-Group': 'devs' }));
    expect(groupOnly.status).toBe(400);
    expect(groupOnly.json?.['message']).toBe('requested [groups "devs"] without impersonating a user');
  });
});
