import { describe, expect, it } from 'vitest';
import type { UserInfo } from './handler.js';
import { attributesFromRequest } from './authorizer.js';
import { authorizerForModes } from './authorizer-for-modes.js';
import { parseRequestInfo } from './request-info.js';
import { InMemoryRBACRules, user } from './rbac-test-data.js';

const request = (who: UserInfo, method: string, url: string) =>
  attributesFromRequest(parseRequestInfo(method, url), who);
const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };
const admin: UserInfo = { name: 'root', groups: ['system:masters', 'system:authenticated'] };

describe('authorizerForModes', () => {
  it('RBAC: bound rules allow, system:masters always, the rest has no opinion', async () => {
    const rules = new InMemoryRBACRules()
      .addClusterRole('view', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])
      .bindClusterRole('bob-view', 'view', [user('bob')]);
    const authorizer = authorizerForModes({ modes: ['RBAC'], rbacRuleSource: rules });
    expect((await authorizer.authorize(request(bob, 'GET', '/api/v1/namespaces/a/pods/p'))).decision).toBe(
      'allow',
    );
    expect((await authorizer.authorize(request(bob, 'DELETE', '/api/v1/namespaces/a/pods/p'))).decision).toBe(
      'noOpinion',
    );
    expect((await authorizer.authorize(request(admin, 'DELETE', '/api/v1/nodes/n'))).decision).toBe('allow');
  });

  it('AlwaysAllow and AlwaysDeny, in order', async () => {
    expect(
      (await authorizerForModes({ modes: ['AlwaysAllow'] }).authorize(request(bob, 'GET', '/x'))).decision,
    ).toBe('allow');
    const deny = authorizerForModes({ modes: ['AlwaysDeny', 'AlwaysAllow'] });
    expect((await deny.authorize(request(bob, 'GET', '/x'))).decision).toBe('allow');
    expect(
      (await authorizerForModes({ modes: ['AlwaysDeny'] }).authorize(request(bob, 'GET', '/x'))).decision,
    ).toBe('noOpinion');
    expect(
      (await authorizerForModes({ modes: ['AlwaysDeny'] }).authorize(request(admin, 'GET', '/x'))).decision,
    ).toBe('allow');
  });

  it('rejects bad configurations', () => {
    expect(() => authorizerForModes({ modes: [] })).toThrow('at least one authorization mode');
    expect(() => authorizerForModes({ modes: ['RBAC'] })).toThrow('needs an rbacRuleSource');
    expect(() => authorizerForModes({ modes: ['AlwaysAllow', 'AlwaysAllow'] })).toThrow(
      'already been specified',
    );
  });
});
