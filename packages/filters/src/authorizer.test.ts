import { describe, expect, it } from 'vitest';
import type { UserInfo } from './handler.js';
import {
  alwaysAllowAuthorizer,
  alwaysDenyAuthorizer,
  attributesFromRequest,
  authorizeAttributes,
  forbiddenError,
  forbiddenMessage,
  privilegedGroupsAuthorizer,
  unionAuthorizer,
  type AuthorizationDecision,
  type Authorizer,
} from './authorizer.js';
import { parseRequestInfo } from './request-info.js';

const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };
const attributes = (method: string, url: string, ...user: [UserInfo | undefined] | []) =>
  attributesFromRequest(parseRequestInfo(method, url), user.length === 0 ? bob : user[0]);
const fixed = (result: AuthorizationDecision): Authorizer => ({ authorize: async () => result });

describe('forbidden messages', () => {
  it.each([
    [
      'GET',
      '/api/v1/namespaces/default/configmaps/x',
      'configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"',
    ],
    [
      'GET',
      '/api/v1/namespaces/default/configmaps',
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
    ],
    [
      'GET',
      '/api/v1/nodes/n1',
      'nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope',
    ],
    [
      'GET',
      '/apis/apps/v1/deployments?watch=true',
      'deployments.apps is forbidden: User "bob" cannot watch resource "deployments" in API group "apps" at the cluster scope',
    ],
    [
      'PUT',
      '/apis/apps/v1/namespaces/prod/deployments/web/status',
      'deployments.apps "web" is forbidden: User "bob" cannot update resource "deployments/status" in API group "apps" in the namespace "prod"',
    ],
    [
      'DELETE',
      '/api/v1/namespaces/foo',
      'namespaces "foo" is forbidden: User "bob" cannot delete resource "namespaces" in API group "" in the namespace "foo"',
    ],
    ['GET', '/foo', 'forbidden: User "bob" cannot get path "/foo"'],
  ])('%s %s', (method, url, message) => {
    expect(forbiddenError(attributes(method, url)).status.message).toBe(message);
  });

  it('builds the full 403 Status with details, and appends the reason', () => {
    const status = forbiddenError(
      attributes('GET', '/apis/apps/v1/namespaces/prod/deployments/web'),
      'RBAC: role "x" not found',
    ).status;
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments" in API group "apps" in the namespace "prod": RBAC: role "x" not found',
      reason: 'Forbidden',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
      code: 403,
    });
    expect(forbiddenError(attributes('GET', '/foo')).status.details).toEqual({});
  });

  it('names an anonymous request with an empty user and escapes HTML', () => {
    expect(forbiddenMessage(attributes('GET', '/healthz', undefined))).toBe(
      'User "" cannot get path "/healthz"',
    );
    expect(forbiddenError(attributes('GET', '/<script>')).status.message).toBe(
      'forbidden: User "bob" cannot get path "/&lt;script&gt;"',
    );
  });
});

describe('authorizers', () => {
  it('alwaysAllow and alwaysDeny', async () => {
    expect(await alwaysAllowAuthorizer.authorize(attributes('GET', '/x'))).toEqual({ decision: 'allow' });
    expect((await alwaysDenyAuthorizer.authorize(attributes('GET', '/x'))).decision).toBe('noOpinion');
  });

  it('privileged groups allow their members only', async () => {
    const masters = privilegedGroupsAuthorizer(['system:masters']);
    expect(
      (await masters.authorize(attributes('GET', '/x', { name: 'a', groups: ['system:masters'] }))).decision,
    ).toBe('allow');
    expect((await masters.authorize(attributes('GET', '/x'))).decision).toBe('noOpinion');
    expect((await masters.authorize(attributes('GET', '/x', undefined))).decision).toBe('noOpinion');
  });

  it('union: the first allow or deny wins, otherwise noOpinion with all reasons', async () => {
    const calls: string[] = [];
    const traced = (name: string, result: AuthorizationDecision): Authorizer => ({
      authorize: async () => {
        calls.push(name);
        return result;
      },
    });
    const union = unionAuthorizer(
      traced('a', { decision: 'noOpinion', reason: 'a has none' }),
      traced('b', { decision: 'deny', reason: 'b says no' }),
      traced('c', { decision: 'allow' }),
    );
    expect(await union.authorize(attributes('GET', '/x'))).toEqual({ decision: 'deny', reason: 'b says no' });
    expect(calls).toEqual(['a', 'b']);
    expect(
      await unionAuthorizer(
        fixed({ decision: 'noOpinion', reason: 'one' }),
        fixed({ decision: 'noOpinion', reason: 'two' }),
      ).authorize(attributes('GET', '/x')),
    ).toEqual({
      decision: 'noOpinion',
      reason: 'one\ntwo',
    });
    expect((await unionAuthorizer().authorize(attributes('GET', '/x'))).decision).toBe('noOpinion');
  });

  it('union: an erroring authorizer is skipped, and its error surfaces when nobody decides', async () => {
    const broken: Authorizer = { authorize: async () => Promise.reject(new Error('webhook down')) };
    expect(
      (await unionAuthorizer(broken, alwaysAllowAuthorizer).authorize(attributes('GET', '/x'))).decision,
    ).toBe('allow');
    await expect(
      unionAuthorizer(broken, fixed({ decision: 'noOpinion' })).authorize(attributes('GET', '/x')),
    ).rejects.toThrow('webhook down');
  });

  it('authorizeAttributes answers like a SubjectAccessReview status', async () => {
    expect(await authorizeAttributes(alwaysAllowAuthorizer, attributes('GET', '/x'))).toEqual({
      allowed: true,
    });
    expect(
      await authorizeAttributes(fixed({ decision: 'deny', reason: 'no' }), attributes('GET', '/x')),
    ).toEqual({
      allowed: false,
      denied: true,
      reason: 'no',
    });
    expect(await authorizeAttributes(fixed({ decision: 'noOpinion' }), attributes('GET', '/x'))).toEqual({
      allowed: false,
    });
    expect(
      await authorizeAttributes(
        { authorize: () => Promise.reject(new Error('down')) },
        attributes('GET', '/x'),
      ),
    ).toEqual({
      allowed: false,
      evaluationError: 'down',
    });
  });
});

describe('unionAuthorizer with authorizers that answer at once', () => {
  const now = (result: AuthorizationDecision): Authorizer => ({ authorize: () => result });
  const throwing: Authorizer = {
    authorize: () => {
      throw new Error('cache not synced');
    },
  };

  it('answers at once when every authorizer asked does, and waits only for a promised answer', async () => {
    const immediate = unionAuthorizer(now({ decision: 'noOpinion', reason: 'a' }), now({ decision: 'allow' }), fixed({ decision: 'deny' }));
    const answer = immediate.authorize(attributes('GET', '/api/v1/pods'));
    expect(answer).not.toBeInstanceOf(Promise);
    expect(answer).toEqual({ decision: 'allow' });
    const mixed = unionAuthorizer(now({ decision: 'noOpinion', reason: 'a' }), fixed({ decision: 'noOpinion', reason: 'b' }), now({ decision: 'deny', reason: 'c' }));
    const later = mixed.authorize(attributes('GET', '/api/v1/pods'));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toEqual({ decision: 'deny', reason: 'c' });
    const none = unionAuthorizer(now({ decision: 'noOpinion', reason: 'a' }), fixed({ decision: 'noOpinion', reason: 'b' }));
    expect(await none.authorize(attributes('GET', '/api/v1/pods'))).toEqual({ decision: 'noOpinion', reason: 'a\nb' });
  });

  it('treats a throwing authorizer as no opinion unless nobody decides', async () => {
    expect(unionAuthorizer(throwing, now({ decision: 'allow' })).authorize(attributes('GET', '/api/v1/pods'))).toEqual({ decision: 'allow' });
    expect(() => unionAuthorizer(throwing, now({ decision: 'noOpinion' })).authorize(attributes('GET', '/api/v1/pods'))).toThrow('cache not synced');
    expect(await authorizeAttributes(unionAuthorizer(throwing), attributes('GET', '/api/v1/pods'))).toEqual({
      allowed: false,
      evaluationError: 'cache not synced',
    });
  });
});
