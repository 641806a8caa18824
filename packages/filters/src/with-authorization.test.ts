import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain } from './handler.js';
import { withAuthorization } from './with-authorization.js';
import { withAuthentication } from './with-authentication.js';
import { withRequestInfo } from './with-request-info.js';
import { tokenFileAuthenticator } from './token-file-authenticator.js';
import { alwaysAllowAuthorizer, type Authorizer } from './authorizer.js';
import { RBACAuthorizer } from './rbac-authorizer.js';
import { InMemoryRBACRules, user } from './rbac-test-data.js';
import { okHandler, serve, type TestServer } from './test-support.js';

const tokens = tokenFileAuthenticator({ content: 'bob-token,bob,2\nroot-token,root,0,system:masters\n' });
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

describe('withAuthorization', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(authorizer: Authorizer) {
    server = await serve(
      buildHandlerChain(
        [
          withRequestInfo(),
          withAuthentication({ authenticators: [tokens] }),
          withAuthorization({ authorizer }),
        ],
        okHandler(),
      ),
    );
    return server;
  }

  it('passes allowed requests and answers 403 with Kubernetes wording otherwise', async () => {
    const rules = new InMemoryRBACRules()
      .addRole('default', 'cm-reader', [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['open'] },
      ])
      .bindRole('default', 'bob-reads', { kind: 'Role', name: 'cm-reader' }, [user('bob')]);
    const api = await start(new RBACAuthorizer(rules));

    expect((await api.send('/api/v1/namespaces/default/configmaps/open', bearer('bob-token'))).status).toBe(
      200,
    );

    const denied = await api.send('/api/v1/namespaces/default/configmaps/x', bearer('bob-token'));
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"',
      reason: 'Forbidden',
      details: { name: 'x', group: '', kind: 'configmaps' },
      code: 403,
    });

    const list = await api.send('/api/v1/namespaces/default/configmaps', bearer('bob-token'));
    expect(list.json?.message).toBe(
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    const cluster = await api.send('/api/v1/configmaps', bearer('bob-token'));
    expect(cluster.json?.message).toBe(
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" at the cluster scope',
    );
    const path = await api.send('/foo', bearer('bob-token'));
    expect(path.json?.message).toBe('forbidden: User "bob" cannot get path "/foo"');
    const status = await api.send('/apis/apps/v1/namespaces/default/deployments/web/status', {
      method: 'PUT',
      body: '{}',
      ...bearer('bob-token'),
    });
    expect(status.json?.message).toBe(
      'deployments.apps "web" is forbidden: User "bob" cannot update resource "deployments/status" in API group "apps" in the namespace "default"',
    );

    expect((await api.send('/api/v1/nodes', bearer('root-token'))).status).toBe(200);
  });

  it('allows everything with alwaysAllow', async () => {
    const api = await start(alwaysAllowAuthorizer);
    expect((await api.send('/api/v1/secrets', bearer('bob-token'))).status).toBe(200);
  });

  it('adds the authorizer reason to the message, and turns an authorizer error into 500', async () => {
    const api = await start({
      authorize: async () => ({ decision: 'deny', reason: 'no reading after midnight' }),
    });
    const denied = await api.send('/api/v1/pods', bearer('bob-token'));
    expect(denied.json?.message).toBe(
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" at the cluster scope: no reading after midnight',
    );
    await server?.close();
    const broken = await start({ authorize: () => Promise.reject(new Error('policy store offline')) });
    const failed = await broken.send('/api/v1/pods', bearer('bob-token'));
    expect(failed.status).toBe(500);
    expect(failed.json?.message).toBe('Internal error occurred: policy store offline');
  });

  it('needs request info', async () => {
    server = await serve(
      buildHandlerChain([withAuthorization({ authorizer: alwaysAllowAuthorizer })], okHandler()),
    );
    expect((await server.send('/x')).status).toBe(500);
  });
});
