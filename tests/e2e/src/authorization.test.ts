import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient } from '@kapi/client';
import { kubectl, startServer, type TestServer } from './harness.js';
import { eventually, rbacGroup, rbacPath, rbacSession, rule } from './rbac-session.js';

const execFileAsync = promisify(execFile);
const cmPath = '/api/v1/namespaces/default/configmaps';

let server: TestServer;
let admin: RestClient;

beforeAll(async () => {
  const tokens = join(mkdtempSync(join(tmpdir(), 'kapi-authz-')), 'tokens.csv');
  writeFileSync(
    tokens,
    ['patcher', 'escalator', 'bob', 'lister', 'alice', 'editor', 'aggregator'].map((user, index) => `${user}-token,${user},${2000 + index}`).join('\n') + '\n',
  );
  server = await startServer({ args: [`--token-auth-file=${tokens}`] });
  admin = server.client();
});

afterAll(async () => {
  await server?.stop();
});

const { call, grant, grantCluster, exists } = rbacSession(() => ({ url: server.url, admin }));

describe('server-side apply that creates is authorized as create (one authorizer)', () => {
  const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '1' } };
  const apply = () =>
    call('PATCH', `${cmPath}/applied?fieldManager=e2e`, { user: 'patcher', body: applied, contentType: 'application/apply-patch+yaml' });

  it('403 with only patch, 201 once also allowed create', async () => {
    await grant('cm-patch', 'patcher', [rule(['patch'], [''], ['configmaps'])]);
    const denied = await eventually(403, apply);
    expect(denied.code).toBe(403);
    expect(denied.body.message).toBe(
      'configmaps "applied" is forbidden: User "patcher" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    expect(await exists(`${cmPath}/applied`)).toBe(false);

    await grant('cm-patch', 'patcher', [rule(['patch', 'create'], [''], ['configmaps'])]);
    const created = await eventually(201, apply);
    expect(created.code).toBe(201);
    expect(await exists(`${cmPath}/applied`)).toBe(true);
  });
});

describe('RBAC escalation prevention', () => {
  const role = (name: string, rules: unknown[]) => ({ apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name }, rules });
  const binding = (name: string, kind: string, roleName: string) => ({
    apiVersion: `${rbacGroup}/v1`,
    kind: 'RoleBinding',
    metadata: { name },
    roleRef: { apiGroup: rbacGroup, kind, name: roleName },
    subjects: [{ apiGroup: rbacGroup, kind: 'User', name: 'escalator' }],
  });
  const createRole = (body: unknown) => call('POST', `${rbacPath}/namespaces/default/roles`, { user: 'escalator', body });
  const createBinding = (body: unknown) => call('POST', `${rbacPath}/namespaces/default/rolebindings`, { user: 'escalator', body });
  const held = 'user "escalator" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:';

  beforeAll(async () => {
    await grant('rbac-writer', 'escalator', [
      rule(['create', 'get', 'list', 'patch', 'update'], [rbacGroup], ['roles', 'rolebindings']),
      rule(['get', 'list'], [''], ['configmaps']),
    ]);
    await eventually(201, () => createRole(role('probe', [])));
  });

  it('cannot bind cluster-admin to himself nor create a */*/* role', async () => {
    const bound = await createBinding(binding('self-admin', 'ClusterRole', 'cluster-admin'));
    expect(bound.code).toBe(403);
    expect(bound.body.message).toBe(
      `rolebindings.${rbacGroup} "self-admin" is forbidden: ${held}\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`,
    );
    const star = await createRole(role('star', [rule(['*'], ['*'], ['*'])]));
    expect(star.code).toBe(403);
    expect(star.body.message).toBe(`roles.${rbacGroup} "star" is forbidden: ${held}\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`);
    const partly = await createRole(role('partly', [rule(['get', 'delete', 'update'], [''], ['configmaps', 'secrets'])]));
    expect(partly.code).toBe(403);
    expect(partly.body.message).toBe(
      `roles.${rbacGroup} "partly" is forbidden: ${held}\n` +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete" "update"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "update"]}',
    );
    for (const path of ['rolebindings/self-admin', 'roles/star', 'roles/partly']) {
      expect(await exists(`${rbacPath}/namespaces/default/${path}`)).toBe(false);
    }
  });

  it('can create and bind a role whose rules he holds', async () => {
    expect((await createRole(role('cm-reader', [rule(['get'], [''], ['configmaps'])]))).code).toBe(201);
    expect((await createBinding(binding('cm-reader', 'Role', 'cm-reader'))).code).toBe(201);
  });

  it('an update or patch that adds rules he does not hold is refused too', async () => {
    const path = `${rbacPath}/namespaces/default/roles/cm-reader`;
    const patched = await call('PATCH', path, {
      user: 'escalator',
      contentType: 'application/merge-patch+json',
      body: { rules: [rule(['get'], [''], ['configmaps']), rule(['get'], [''], ['secrets'])] },
    });
    expect(patched.code).toBe(403);
    expect(patched.body.message).toBe(`roles.${rbacGroup} "cm-reader" is forbidden: ${held}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
    const applied = await call('PATCH', `${path}?fieldManager=e2e&force=true`, {
      user: 'escalator',
      contentType: 'application/apply-patch+yaml',
      body: role('cm-reader', [rule(['list'], [''], ['secrets'])]),
    });
    expect(applied.code).toBe(403);
    const stored = await admin.request<{ rules: unknown[] }>({ method: 'GET', path });
    expect(stored.rules).toEqual([rule(['get'], [''], ['configmaps'])]);
  });

  it('can escalate with the escalate verb and bind with the bind verb', async () => {
    await grant('escalate-bind', 'escalator', [
      rule(['escalate'], [rbacGroup], ['roles']),
      rule(['bind'], [rbacGroup], ['clusterroles'], ['cluster-admin']),
    ]);
    expect((await eventually(201, () => createRole(role('star', [rule(['*'], ['*'], ['*'])])))).code).toBe(201);
    expect((await createBinding(binding('self-admin', 'ClusterRole', 'cluster-admin'))).code).toBe(201);
  });
});

describe('impersonation', () => {
  const run = async (args: string[]) => {
    const command = process.env.KUBECTL ?? 'kubectl';
    return execFileAsync(command, ['--kubeconfig', server.kubeconfig, ...args]).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
    );
  };

  it('kubectl --as=alice runs with alice\'s rights, and auth can-i --as answers for alice', async () => {
    const denied = await run(['--as=alice', 'get', 'configmaps', '-n', 'default']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    expect((await run(['auth', 'can-i', 'list', 'configmaps', '-n', 'default'])).stdout.trim()).toBe('yes');
    expect((await run(['auth', 'can-i', 'list', 'configmaps', '-n', 'default', '--as=alice'])).stdout.trim()).toBe('no');

    await grant('alice-reader', 'alice', [rule(['get', 'list'], [''], ['configmaps'])]);
    await eventually(200, () => call('GET', cmPath, { user: 'alice' }));
    expect((await run(['auth', 'can-i', 'list', 'configmaps', '-n', 'default', '--as=alice'])).stdout.trim()).toBe('yes');
    expect((await run(['auth', 'can-i', 'delete', 'configmaps', '-n', 'default', '--as=alice'])).stdout.trim()).toBe('no');
    await kubectl(server, ['--as=alice', 'get', 'configmaps', '-n', 'default']);
  });

  it('kubectl auth whoami answers for any authenticated user (system:basic-user), and for the one impersonated', async () => {
    // bob has no grants of his own: SelfSubjectReview is open to system:authenticated.
    const bob = await run(['--token=bob-token', 'auth', 'whoami', '-o', 'json']);
    expect(bob.stderr).toBe('');
    const review = JSON.parse(bob.stdout) as { apiVersion: string; kind: string; status: { userInfo: Record<string, unknown> } };
    expect(review).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(review.status.userInfo).toEqual({ username: 'bob', uid: '2002', groups: ['system:authenticated'] });

    const asAlice = await run(['auth', 'whoami', '--as=alice', '--as-group=devs']);
    expect(asAlice.code).toBe(0);
    expect(asAlice.stdout).toMatch(/Username\s+alice/);
    expect(asAlice.stdout).toMatch(/Groups\s+\[devs system:authenticated\]/);

    const anonymous = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(anonymous.code).toBe(403);
  });

  it('a user without the impersonate verb gets 403', async () => {
    const denied = await run(['--token=bob-token', '--as=alice', 'get', 'configmaps', '-n', 'default']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');

    const serviceAccount = await call('GET', cmPath, { user: 'bob', headers: { 'Impersonate-User': 'system:serviceaccount:default:robot' } });
    expect(serviceAccount.code).toBe(403);
    expect(serviceAccount.body.message).toBe(
      'serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "default"',
    );
  });

  it('impersonated groups, uids and extras are each authorized; groups without a user are 400', async () => {
    await grantCluster('impersonator', 'bob', [rule(['impersonate'], [''], ['users'], ['alice'])]);
    const asAlice = await eventually(200, () => call('GET', cmPath, { user: 'bob', headers: { 'Impersonate-User': 'alice' } }));
    expect(asAlice.code).toBe(200);
    const withGroup = await call('GET', cmPath, { user: 'bob', headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': 'admins' } });
    expect(withGroup.code).toBe(403);
    expect(withGroup.body.message).toBe('groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope');
    const withExtra = await call('GET', cmPath, { user: 'bob', headers: { 'Impersonate-User': 'alice', 'Impersonate-Extra-Scopes': 'view' } });
    expect(withExtra.code).toBe(403);
    expect(withExtra.body.message).toBe(
      'userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
    );
    const withUid = await call('GET', cmPath, { user: 'bob', headers: { 'Impersonate-User': 'alice', 'Impersonate-Uid': '1234' } });
    expect(withUid.code).toBe(403);
    expect(withUid.body.message).toBe(
      'uids.authentication.k8s.io "1234" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
    );
    const groupOnly = await call('GET', cmPath, { user: 'bob', headers: { 'Impersonate-Group': 'admins' } });
    expect(groupOnly.code).toBe(400);
    expect(groupOnly.body.message).toContain('without impersonating a user');
  });
});

describe('anonymous requests and public info (upstream defaults)', () => {
  it('public info is open to requests without credentials, everything else is 403', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
      expect((await eventually(200, () => call('GET', path))).code, path).toBe(200);
    }
    const list = await call('GET', cmPath);
    expect(list.code).toBe(403);
    expect(list.body.message).toBe(
      'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    const discovery = await call('GET', '/api');
    expect(discovery.code).toBe(403);
    expect(discovery.body.message).toBe('forbidden: User "system:anonymous" cannot get path "/api"');
  });

  it('discovery and self reviews for every authenticated user', async () => {
    expect((await call('GET', '/api', { user: 'bob' })).code).toBe(200);
    const review = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      user: 'bob',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'secrets' } } },
    });
    expect(review.code).toBe(201);
    expect(review.body['status']).toMatchObject({ allowed: false });
  });

  it('401 only for credentials that are present but invalid', async () => {
    const bad = await call('GET', '/healthz', { token: 'no-such-token' });
    expect(bad.code).toBe(401);
    expect(bad.body.reason).toBe('Unauthorized');
  });
});

describe('resourceNames-limited list and watch', () => {
  beforeAll(async () => {
    for (const name of ['x', 'y']) {
      await admin.request({ method: 'POST', path: cmPath, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
    }
    await grant('only-x', 'lister', [rule(['get', 'list', 'watch'], [''], ['configmaps'], ['x'])]);
  });

  it('list and watch with fieldSelector=metadata.name=x are allowed, without it denied', async () => {
    const listed = await eventually(200, () => call('GET', `${cmPath}?fieldSelector=metadata.name%3Dx`, { user: 'lister' }));
    expect(listed.code).toBe(200);
    expect(listed.body.items?.map((item) => item.metadata.name)).toEqual(['x']);
    const watched = await call('GET', `${cmPath}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dx`, { user: 'lister' });
    expect(watched.code).toBe(200);
    expect(watched.text).toContain('"name":"x"');

    const all = await call('GET', cmPath, { user: 'lister' });
    expect(all.code).toBe(403);
    expect(all.body.message).toBe('configmaps is forbidden: User "lister" cannot list resource "configmaps" in API group "" in the namespace "default"');
    const other = await call('GET', `${cmPath}?fieldSelector=metadata.name%3Dy`, { user: 'lister' });
    expect(other.code).toBe(403);
    expect(other.body.message).toBe('configmaps "y" is forbidden: User "lister" cannot list resource "configmaps" in API group "" in the namespace "default"');
    expect((await call('GET', `${cmPath}?watch=1&timeoutSeconds=1`, { user: 'lister' })).code).toBe(403);
  });
});

describe('a named GET with ?watch=1 is a get, not a watch (as upstream)', () => {
  it('a user allowed only get receives the object, never a stream of its changes', async () => {
    await admin.request({ method: 'POST', path: cmPath, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched-by-get' }, data: { k: 'v1' } } });
    await grant('get-only', 'bob', [rule(['get'], [''], ['configmaps'])]);
    const got = await eventually(200, () => call('GET', `${cmPath}/watched-by-get?watch=1&timeoutSeconds=2`, { user: 'bob' }));
    expect(got.code).toBe(200);
    // One ConfigMap, not watch events: the answer is the object itself.
    expect(got.body.kind).toBe('ConfigMap');
    expect((got.body.metadata as { name?: string }).name).toBe('watched-by-get');
    expect(got.text).not.toContain('"type":"ADDED"');
    // The watch forms stay refused without the watch verb.
    const legacy = await call('GET', '/api/v1/watch/namespaces/default/configmaps/watched-by-get?timeoutSeconds=1', { user: 'bob' });
    expect(legacy.code).toBe(403);
    const selected = await call('GET', `${cmPath}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dwatched-by-get`, { user: 'bob' });
    expect(selected.code).toBe(403);
  });
});

describe('ClusterRole aggregation', () => {
  const clusterRolePath = `${rbacPath}/clusterroles`;
  const rulesOf = async (name: string) => (await admin.request<{ rules?: unknown[] }>({ method: 'GET', path: `${clusterRolePath}/${name}` })).rules ?? [];

  it('admin, edit and view gather the aggregate-to-* roles, and follow a new one', async () => {
    const leases = rule(['get', 'list', 'watch'], ['coordination.k8s.io'], ['leases']);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(await rulesOf('admin')).some((held) => JSON.stringify(held).includes('rolebindings'))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await rulesOf('view')).toContainEqual(leases);
    expect(await rulesOf('edit')).toContainEqual(leases);
    expect(await rulesOf('admin')).toContainEqual(rule(['get', 'list', 'watch', 'create', 'delete', 'deletecollection', 'patch', 'update'], [rbacGroup], ['roles', 'rolebindings']));

    const extra = rule(['get'], ['example.com'], ['widgets']);
    await admin.request({
      method: 'POST',
      path: clusterRolePath,
      body: {
        apiVersion: `${rbacGroup}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
        rules: [extra],
      },
    });
    for (const name of ['view', 'edit', 'admin']) {
      const until = Date.now() + 10_000;
      while (Date.now() < until && !(await rulesOf(name)).some((held) => JSON.stringify(held) === JSON.stringify(extra))) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await rulesOf(name), name).toContainEqual(extra);
    }
  });

  it('a user bound to edit may write configmaps through the aggregated rules', async () => {
    await admin.request({
      method: 'POST',
      path: `${rbacPath}/namespaces/default/rolebindings`,
      body: {
        apiVersion: `${rbacGroup}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'editor' },
        roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'edit' },
        subjects: [{ apiGroup: rbacGroup, kind: 'User', name: 'editor' }],
      },
    });
    const created = await eventually(201, () =>
      call('POST', cmPath, { user: 'editor', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-editor' } } }),
    );
    expect(created.code).toBe(201);
    // As upstream's edit: Services yes; Endpoints and EndpointSlices only read (CVE-2021-25740).
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'by-editor' }, spec: { ports: [{ port: 80 }] } };
    expect((await call('POST', '/api/v1/namespaces/default/services', { user: 'editor', body: service })).code).toBe(201);
    const endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'by-editor' }, subsets: [] };
    expect((await call('POST', '/api/v1/namespaces/default/endpoints', { user: 'editor', body: endpoints })).code).toBe(403);
    expect((await call('GET', '/api/v1/namespaces/default/endpoints', { user: 'editor' })).code).toBe(200);
    expect((await call('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { user: 'editor' })).code).toBe(200);
  });

  it('an aggregationRule needs every permission there is', async () => {
    await grantCluster('clusterrole-writer', 'aggregator', [rule(['create'], [rbacGroup], ['clusterroles'])]);
    const gather = () =>
      call('POST', clusterRolePath, {
        user: 'aggregator',
        body: {
          apiVersion: `${rbacGroup}/v1`,
          kind: 'ClusterRole',
          metadata: { name: 'gather' },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { gather: 'true' } }] },
        },
      });
    const denied = await eventually(403, gather);
    const refused = denied.code === 403 ? denied : await eventually(403, gather);
    expect(refused.body.message).toBe(`clusterroles.${rbacGroup} "gather" is forbidden: must have cluster-admin privileges to use the aggregationRule`);
    expect(await exists(`${clusterRolePath}/gather`)).toBe(false);
  });
});

describe('self reviews are validated as upstream', () => {
  const reviews = '/apis/authorization.k8s.io/v1';
  it('a SelfSubjectAccessReview needs exactly one kind of attributes (422), a SelfSubjectRulesReview a namespace (400)', async () => {
    const ssar = (spec: unknown) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec });
    const empty = await call('POST', `${reviews}/selfsubjectaccessreviews`, { user: 'alice', body: ssar({}) });
    expect(empty.code).toBe(422);
    expect(empty.body.message).toContain('exactly one of nonResourceAttributes or resourceAttributes must be specified');
    const both = await call('POST', `${reviews}/selfsubjectaccessreviews`, { user: 'alice', body: ssar({ resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get', path: '/x' } }) });
    expect(both.code).toBe(422);
    expect(both.body.message).toContain('cannot be specified in combination with resourceAttributes');
    expect((await call('POST', `${reviews}/selfsubjectaccessreviews`, { user: 'alice', body: ssar({ resourceAttributes: { verb: 'get', resource: 'pods' } }) })).code).toBe(201);

    const ssrr = (spec: unknown) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec });
    const noNamespace = await call('POST', `${reviews}/selfsubjectrulesreviews`, { user: 'alice', body: ssrr({}) });
    expect(noNamespace.code).toBe(400);
    expect(noNamespace.body.message).toBe('no namespace on request');
    expect((await call('POST', `${reviews}/selfsubjectrulesreviews`, { user: 'alice', body: ssrr({ namespace: 'default' }) })).code).toBe(201);
  });
});

describe('SubjectAccessReview and LocalSubjectAccessReview', () => {
  const reviews = '/apis/authorization.k8s.io/v1';
  const review = (kind: string, spec: Record<string, unknown>) => ({ apiVersion: 'authorization.k8s.io/v1', kind, spec });
  const attributes = (name: string, namespace = 'default') => ({ verb: 'get', resource: 'configmaps', namespace, name });

  it('answers for the user of the spec with the server\'s authorizer', async () => {
    const allowed = await admin.request<{ status: { allowed: boolean; reason?: string } }>({
      method: 'POST',
      path: `${reviews}/subjectaccessreviews`,
      body: review('SubjectAccessReview', { user: 'lister', resourceAttributes: attributes('x') }),
    });
    expect(allowed.status.allowed).toBe(true);
    expect(allowed.status.reason).toBe('RBAC: allowed by RoleBinding "only-x/default" of Role "only-x" to User "lister"');
    const denied = await admin.request<{ status: { allowed: boolean } }>({
      method: 'POST',
      path: `${reviews}/namespaces/default/localsubjectaccessreviews`,
      body: review('LocalSubjectAccessReview', { user: 'lister', resourceAttributes: attributes('y') }),
    });
    expect(denied.status.allowed).toBe(false);
  });

  it('needs create on the review resource, and a valid spec', async () => {
    const forbidden = await call('POST', `${reviews}/subjectaccessreviews`, {
      user: 'bob',
      body: review('SubjectAccessReview', { user: 'lister', resourceAttributes: attributes('x') }),
    });
    expect(forbidden.code).toBe(403);
    const anonymous = await call('POST', `${reviews}/subjectaccessreviews`, {
      body: review('SubjectAccessReview', { resourceAttributes: attributes('x') }),
    });
    expect(anonymous.code).toBe(403);
    const invalid = await admin.raw({ method: 'POST', path: `${reviews}/subjectaccessreviews`, body: review('SubjectAccessReview', { resourceAttributes: attributes('x') }) });
    expect(invalid.statusCode).toBe(422);
    expect(JSON.parse(invalid.body.toString()).message).toBe(
      'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
    const elsewhere = await admin.raw({
      method: 'POST',
      path: `${reviews}/namespaces/default/localsubjectaccessreviews`,
      body: review('LocalSubjectAccessReview', { user: 'lister', resourceAttributes: attributes('x', 'other') }),
    });
    expect(elsewhere.statusCode).toBe(422);
    expect(JSON.parse(elsewhere.body.toString()).message).toBe(
      'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
    );
  });
});

describe('--anonymous-auth=false', () => {
  let closed: TestServer | undefined;
  afterAll(async () => {
    await closed?.stop();
  });

  it('answers requests without credentials 401', async () => {
    closed = await startServer({ args: ['--anonymous-auth=false'] });
    const client = closed.client();
    const response = await new Promise<number>((resolve, reject) => {
      const request = httpsRequest(new URL('/healthz', closed?.url), { ca: client.config.ca }, (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    expect(response).toBe(401);
  });
});
