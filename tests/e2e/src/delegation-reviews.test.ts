import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';
import { bindClusterRole } from './rbac-session.js';

// TokenReview and SubjectAccessReview: what an aggregated server calls for delegated authn/authz.
let server: TestServer;
let admin: RestClient;
let delegator: RestClient;
let bob: RestClient;
let tokenDir: string;

const tokenReviews = '/apis/authentication.k8s.io/v1/tokenreviews';
const accessReviews = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

beforeAll(async () => {
  tokenDir = mkdtempSync(join(tmpdir(), 'kapi-tokens-'));
  const tokens = join(tokenDir, 'tokens.csv');
  writeFileSync(tokens, 'bob-token,bob,1001,"developers,qa"\nwardle-token,wardle,1002\n');
  server = await startServer({ args: [`--token-auth-file=${tokens}`] });
  admin = server.client();
  const ca = admin.config.ca;
  delegator = new RestClient({ server: server.url, token: 'wardle-token', ...(ca ? { ca } : {}) });
  bob = new RestClient({ server: server.url, token: 'bob-token', ...(ca ? { ca } : {}) });
  // What an aggregated server's delegation needs (upstream: ClusterRoleBinding to system:auth-delegator).
  await bindClusterRole(admin, 'wardle:system:auth-delegator', 'system:auth-delegator', { kind: 'User', name: 'wardle' });
});

afterAll(async () => {
  delegator?.close();
  bob?.close();
  await server?.stop();
  if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
});

async function post(client: RestClient, path: string, body: unknown) {
  const response = await client.raw({ method: 'POST', path, body });
  return {
    code: response.statusCode,
    body: JSON.parse(response.body.toString() || '{}') as Record<string, never>,
  };
}

const tokenReview = (token: string) => ({
  apiVersion: 'authentication.k8s.io/v1',
  kind: 'TokenReview',
  spec: { token },
});
const accessReview = (spec: Record<string, unknown>) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SubjectAccessReview',
  spec,
});

describe('TokenReview', () => {
  it('authenticates a known bearer token as its user', async () => {
    const result = await post(delegator, tokenReviews, tokenReview('bob-token'));
    expect(result.code).toBe(201);
    expect(result.body).toMatchObject({
      kind: 'TokenReview',
      status: {
        authenticated: true,
        user: { username: 'bob', uid: '1001', groups: ['developers', 'qa', 'system:authenticated'] },
      },
    });
  });

  it('answers an unknown token with authenticated omitted and the authenticator error', async () => {
    const result = await post(delegator, tokenReviews, tokenReview('nobody'));
    expect(result.code).toBe(201);
    expect(result.body['status']).toEqual({ user: {}, error: 'invalid bearer token' });
  });

  it('refuses a review without a token with 400', async () => {
    const result = await post(delegator, tokenReviews, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: {},
    });
    expect(result.code).toBe(400);
    expect(result.body).toMatchObject({
      reason: 'BadRequest',
      message: 'token is required for TokenReview in authentication',
    });
  });

  it('is forbidden to a user without create on tokenreviews', async () => {
    const result = await post(bob, tokenReviews, tokenReview('bob-token'));
    expect(result.code).toBe(403);
    expect(result.body['reason']).toBe('Forbidden');
  });
});

describe('SubjectAccessReview', () => {
  const getConfigMaps = {
    resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default', version: 'v1' },
  };

  it('decides with the server RBAC: denied without a binding, allowed with one', async () => {
    const denied = await post(
      delegator,
      accessReviews,
      accessReview({ ...getConfigMaps, user: 'bob', groups: ['developers'] }),
    );
    expect(denied.code).toBe(201);
    expect(denied.body).toMatchObject({ status: { allowed: false } });

    await admin.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'developers-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'developers' }],
      },
    });
    await expect
      .poll(
        async () =>
          (
            await post(
              delegator,
              accessReviews,
              accessReview({ ...getConfigMaps, user: 'bob', groups: ['developers'] }),
            )
          ).body['status'],
        {
          timeout: 10_000,
        },
      )
      .toMatchObject({ allowed: true });
  });

  it('allows system:masters and non-resource paths by rule', async () => {
    const masters = await post(
      delegator,
      accessReviews,
      accessReview({ ...getConfigMaps, user: 'root', groups: ['system:masters'] }),
    );
    expect(masters.body).toMatchObject({ status: { allowed: true } });
    const healthz = await post(
      delegator,
      accessReviews,
      accessReview({
        nonResourceAttributes: { path: '/healthz', verb: 'get' },
        user: 'x',
        groups: ['system:authenticated'],
      }),
    );
    expect(healthz.body).toMatchObject({ status: { allowed: true } });
  });

  it('refuses an empty spec with upstream validation messages', async () => {
    const result = await post(delegator, accessReviews, accessReview({}));
    expect(result.code).toBe(422);
    expect(result.body).toMatchObject({
      reason: 'Invalid',
      message:
        'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    });
  });
});
