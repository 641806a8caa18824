import { describe, expect, it } from 'vitest';
import type { UserInfo } from './handler.js';
import type { AuthorizationAttributes } from './authorizer.js';
import { RBACAuthorizer, ruleAllows } from './rbac-authorizer.js';
import { InMemoryRBACRules, group, serviceAccount, user } from './rbac-test-data.js';

function resource(
  who: UserInfo | undefined,
  verb: string,
  target: { group?: string; resource: string; subresource?: string; namespace?: string; name?: string },
): AuthorizationAttributes {
  return {
    user: who,
    verb,
    isResourceRequest: true,
    path: '',
    namespace: target.namespace ?? '',
    apiGroup: target.group ?? '',
    apiVersion: 'v1',
    resource: target.resource,
    subresource: target.subresource ?? '',
    name: target.name ?? '',
  };
}

function nonResource(who: UserInfo, verb: string, path: string): AuthorizationAttributes {
  return { ...resource(who, verb, { resource: '' }), isResourceRequest: false, path };
}

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['dev', 'system:authenticated'] };

async function decide(authorizer: RBACAuthorizer, attributes: AuthorizationAttributes): Promise<string> {
  return (await authorizer.authorize(attributes)).decision;
}

describe('RBACAuthorizer', () => {
  it('grants cluster-wide through a ClusterRoleBinding', async () => {
    const rules = new InMemoryRBACRules()
      .addClusterRole('configmap-reader', [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] },
      ])
      .bindClusterRole('read-configmaps', 'configmap-reader', [user('alice')]);
    const rbac = new RBACAuthorizer(rules);
    expect(
      await decide(rbac, resource(alice, 'get', { resource: 'configmaps', namespace: 'default', name: 'x' })),
    ).toBe('allow');
    expect(await decide(rbac, resource(alice, 'list', { resource: 'configmaps' }))).toBe('allow');
    expect(
      await decide(
        rbac,
        resource(alice, 'update', { resource: 'configmaps', namespace: 'default', name: 'x' }),
      ),
    ).toBe('noOpinion');
    expect(
      await decide(rbac, resource(alice, 'get', { resource: 'secrets', namespace: 'default', name: 'x' })),
    ).toBe('noOpinion');
    expect(
      await decide(
        rbac,
        resource(alice, 'get', { group: 'apps', resource: 'configmaps', namespace: 'default' }),
      ),
    ).toBe('noOpinion');
    expect(
      await decide(rbac, resource(bob, 'get', { resource: 'configmaps', namespace: 'default', name: 'x' })),
    ).toBe('noOpinion');
  });

  it('grants only in the namespace of a RoleBinding, to a Role or to a ClusterRole', async () => {
    const rules = new InMemoryRBACRules()
      .addRole('default', 'pod-editor', [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }])
      .addClusterRole('deployment-admin', [{ verbs: ['*'], apiGroups: ['apps'], resources: ['*'] }])
      .bindRole('default', 'edit-pods', { kind: 'Role', name: 'pod-editor' }, [group('dev')])
      .bindRole('team-a', 'apps-admin', { kind: 'ClusterRole', name: 'deployment-admin' }, [user('bob')]);
    const rbac = new RBACAuthorizer(rules);
    expect(
      await decide(rbac, resource(bob, 'delete', { resource: 'pods', namespace: 'default', name: 'p' })),
    ).toBe('allow');
    expect(
      await decide(rbac, resource(bob, 'delete', { resource: 'pods', namespace: 'other', name: 'p' })),
    ).toBe('noOpinion');
    expect(await decide(rbac, resource(bob, 'list', { resource: 'pods' }))).toBe('noOpinion');
    expect(
      await decide(
        rbac,
        resource(bob, 'create', { group: 'apps', resource: 'deployments', namespace: 'team-a' }),
      ),
    ).toBe('allow');
    expect(
      await decide(
        rbac,
        resource(bob, 'create', { group: 'apps', resource: 'deployments', namespace: 'team-b' }),
      ),
    ).toBe('noOpinion');
    expect(await decide(rbac, resource(bob, 'list', { group: 'apps', resource: 'deployments' }))).toBe(
      'noOpinion',
    );
  });

  it('matches service accounts by system:serviceaccount:<ns>:<name>, defaulting to the binding namespace', async () => {
    const rules = new InMemoryRBACRules()
      .addClusterRole('view', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])
      .bindClusterRole('builder-view', 'view', [serviceAccount('builder', 'ci')])
      .bindRole('apps', 'local-sa', { kind: 'ClusterRole', name: 'view' }, [serviceAccount('deployer')]);
    const rbac = new RBACAuthorizer(rules);
    const builder: UserInfo = { name: 'system:serviceaccount:ci:builder', groups: [] };
    const deployer: UserInfo = { name: 'system:serviceaccount:apps:deployer', groups: [] };
    const otherDeployer: UserInfo = { name: 'system:serviceaccount:other:deployer', groups: [] };
    expect(
      await decide(rbac, resource(builder, 'get', { resource: 'pods', namespace: 'x', name: 'p' })),
    ).toBe('allow');
    expect(
      await decide(rbac, resource(deployer, 'get', { resource: 'pods', namespace: 'apps', name: 'p' })),
    ).toBe('allow');
    expect(
      await decide(rbac, resource(otherDeployer, 'get', { resource: 'pods', namespace: 'apps', name: 'p' })),
    ).toBe('noOpinion');
    // A namespace-less ServiceAccount subject in a ClusterRoleBinding matches nobody.
    rules.bindClusterRole('broken', 'view', [serviceAccount('deployer')]);
    expect(
      await decide(rbac, resource(deployer, 'get', { resource: 'pods', namespace: 'elsewhere', name: 'p' })),
    ).toBe('noOpinion');
  });

  it('always allows system:masters, unless told otherwise', async () => {
    const admin: UserInfo = { name: 'admin', groups: ['system:masters'] };
    expect(
      await decide(
        new RBACAuthorizer(new InMemoryRBACRules()),
        resource(admin, 'delete', { resource: 'nodes', name: 'n' }),
      ),
    ).toBe('allow');
    expect(
      await decide(
        new RBACAuthorizer(new InMemoryRBACRules(), { privilegedGroups: [] }),
        resource(admin, 'delete', { resource: 'nodes', name: 'n' }),
      ),
    ).toBe('noOpinion');
    expect(
      await decide(
        new RBACAuthorizer(new InMemoryRBACRules()),
        resource(undefined, 'get', { resource: 'nodes' }),
      ),
    ).toBe('noOpinion');
  });

  it('reports bindings to missing roles in the reason', async () => {
    const rules = new InMemoryRBACRules()
      .bindClusterRole('dangling', 'gone', [user('alice')])
      .bindRole('default', 'dangling-role', { kind: 'Role', name: 'vanished' }, [user('alice')]);
    const result = await new RBACAuthorizer(rules).authorize(
      resource(alice, 'get', { resource: 'pods', namespace: 'default', name: 'p' }),
    );
    expect(result).toEqual({
      decision: 'noOpinion',
      reason:
        'RBAC: [clusterroles.rbac.authorization.k8s.io "gone" not found, roles.rbac.authorization.k8s.io "vanished" not found]',
    });
  });

  it('says which binding allowed, as upstream', async () => {
    const rules = new InMemoryRBACRules()
      .addClusterRole('view', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])
      .bindClusterRole('alice-view', 'view', [user('alice')])
      .bindRole('apps', 'sa-view', { kind: 'ClusterRole', name: 'view' }, [serviceAccount('deployer')]);
    const rbac = new RBACAuthorizer(rules);
    expect(
      await rbac.authorize(resource(alice, 'get', { resource: 'pods', namespace: 'x', name: 'p' })),
    ).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "alice-view" of ClusterRole "view" to User "alice"',
    });
    const deployer: UserInfo = { name: 'system:serviceaccount:apps:deployer', groups: [] };
    expect(
      await rbac.authorize(resource(deployer, 'get', { resource: 'pods', namespace: 'apps', name: 'p' })),
    ).toEqual({
      decision: 'allow',
      reason:
        'RBAC: allowed by RoleBinding "sa-view/apps" of ClusterRole "view" to ServiceAccount "deployer/apps"',
    });
  });

  it('lists the rules that apply to a user', async () => {
    const rules = new InMemoryRBACRules()
      .addClusterRole('a', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])
      .addRole('ns', 'b', [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }])
      .bindClusterRole('a', 'a', [user('alice')])
      .bindRole('ns', 'b', { kind: 'Role', name: 'b' }, [user('alice')]);
    const rbac = new RBACAuthorizer(rules);
    expect((await rbac.rulesFor(alice, 'ns')).rules.map((rule) => rule.verbs[0])).toEqual(['get', 'list']);
    expect((await rbac.rulesFor(alice, '')).rules.map((rule) => rule.verbs[0])).toEqual(['get']);
  });
});

describe('ruleAllows', () => {
  it('matches verbs, groups and resources, with wildcards', () => {
    const get = resource(alice, 'get', { group: 'apps', resource: 'deployments', namespace: 'n', name: 'd' });
    expect(ruleAllows(get, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] })).toBe(true);
    expect(ruleAllows(get, { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).toBe(true);
    expect(ruleAllows(get, { verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'] })).toBe(false);
    expect(ruleAllows(get, { verbs: ['get'], apiGroups: [''], resources: ['deployments'] })).toBe(false);
    expect(ruleAllows(get, { verbs: ['get'], resources: ['deployments'] })).toBe(false);
    expect(ruleAllows(get, { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/status'] })).toBe(
      false,
    );
  });

  it('matches subresources only as resource/subresource or */subresource', () => {
    const status = resource(alice, 'update', {
      group: 'apps',
      resource: 'deployments',
      subresource: 'status',
      namespace: 'n',
      name: 'd',
    });
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'] })).toBe(
      false,
    );
    expect(
      ruleAllows(status, { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/status'] }),
    ).toBe(true);
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: ['apps'], resources: ['*/status'] })).toBe(
      true,
    );
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] })).toBe(
      false,
    );
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: ['apps'], resources: ['*'] })).toBe(true);
  });

  it('restricts by resourceNames when given', () => {
    const rule = {
      verbs: ['get', 'list'],
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['allowed'],
    };
    expect(ruleAllows(resource(alice, 'get', { resource: 'configmaps', name: 'allowed' }), rule)).toBe(true);
    expect(ruleAllows(resource(alice, 'get', { resource: 'configmaps', name: 'other' }), rule)).toBe(false);
    expect(ruleAllows(resource(alice, 'list', { resource: 'configmaps' }), rule)).toBe(false);
  });

  it('matches non-resource URLs exactly, by trailing * prefix, or *', () => {
    expect(
      ruleAllows(nonResource(alice, 'get', '/healthz'), { verbs: ['get'], nonResourceURLs: ['/healthz'] }),
    ).toBe(true);
    expect(
      ruleAllows(nonResource(alice, 'get', '/healthz/etcd'), {
        verbs: ['get'],
        nonResourceURLs: ['/healthz'],
      }),
    ).toBe(false);
    expect(
      ruleAllows(nonResource(alice, 'get', '/healthz/etcd'), {
        verbs: ['get'],
        nonResourceURLs: ['/healthz/*'],
      }),
    ).toBe(true);
    expect(
      ruleAllows(nonResource(alice, 'get', '/apis'), { verbs: ['get'], nonResourceURLs: ['/api*'] }),
    ).toBe(true);
    expect(
      ruleAllows(nonResource(alice, 'post', '/healthz'), { verbs: ['get'], nonResourceURLs: ['*'] }),
    ).toBe(false);
    expect(
      ruleAllows(nonResource(alice, 'get', '/anything'), { verbs: ['get'], nonResourceURLs: ['*'] }),
    ).toBe(true);
    // Resource rules do not grant non-resource paths.
    expect(
      ruleAllows(nonResource(alice, 'get', '/healthz'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }),
    ).toBe(false);
  });
});
