import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient } from '@kapi/client';
import { kubectl, startServer, type TestServer } from './harness.js';
import { httpsCall } from './https-call.js';

// ServiceAccount tokens as upstream: TokenRequest (`kubectl create token`), the service account JWT
// authenticator (also behind TokenReview), and OIDC issuer discovery.
let server: TestServer;
let admin: RestClient;
let ca: string | undefined;
const issuer = 'https://kubernetes.default.svc.cluster.local';

beforeAll(async () => {
  server = await startServer();
  admin = server.client();
  ca = admin.config.ca;
  // The service accounts controller creates `default` shortly after the server is ready.
  const deadline = Date.now() + 20_000;
  while (!(await kubectl(server, ['get', 'serviceaccount', 'default', '-n', 'default']).then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error('the default service account did not appear');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(async () => {
  await server?.stop();
});

const whoAmI = (token: string) =>
  httpsCall(server.url, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    ca,
    token,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });

/** A @kubernetes/client-node config that authenticates with `token` alone. */
function tokenConfig(token: string): k8s.KubeConfig {
  const config = new k8s.KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'kapi', server: server.url, caData: Buffer.from(ca ?? '').toString('base64') }],
    users: [{ name: 'robot', token }],
    contexts: [{ name: 'kapi', cluster: 'kapi', user: 'robot' }],
    currentContext: 'kapi',
  });
  return config;
}

describe('ServiceAccount tokens', () => {
  it('discovery lists serviceaccounts/token (create, authentication.k8s.io/v1 TokenRequest) as upstream', async () => {
    const legacy = JSON.parse(await kubectl(server, ['get', '--raw', '/api/v1'])) as { resources: Array<Record<string, unknown>> };
    expect(legacy.resources.find((resource) => resource['name'] === 'serviceaccounts/token')).toEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
    const aggregated = await admin.raw({ method: 'GET', path: '/api', accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const core = JSON.parse(aggregated.body.toString()) as { items: Array<{ versions: Array<{ resources: Array<{ resource: string; subresources?: unknown[] }> }> }> };
    const serviceAccounts = core.items[0]?.versions[0]?.resources.find((resource) => resource.resource === 'serviceaccounts');
    expect(serviceAccounts?.subresources).toEqual([{ subresource: 'token', responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] }]);
  });

  it('kubectl create token prints a token that authenticates as the service account', async () => {
    const token = (await kubectl(server, ['create', 'token', 'default', '-n', 'default'])).trim();
    expect(token.split('.')).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: issuer, aud: [issuer], sub: 'system:serviceaccount:default:default' });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    const whoami = await kubectl(server, ['auth', 'whoami', '--token', token, '-o', 'json']);
    const userInfo = (JSON.parse(whoami) as { status: { userInfo: Record<string, unknown> } }).status.userInfo;
    const serviceAccount = await admin.request<{ metadata: { uid: string } }>({ method: 'GET', path: '/api/v1/namespaces/default/serviceaccounts/default' });
    expect(userInfo).toEqual({
      username: 'system:serviceaccount:default:default',
      uid: serviceAccount.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claims.jti)}`] },
    });
  });

  it('refuses a duration under 10 minutes as upstream', async () => {
    await expect(kubectl(server, ['create', 'token', 'default', '-n', 'default', '--duration=5m'])).rejects.toThrow(
      'spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes',
    );
  });

  it('refuses a TokenRequest with a value of the wrong type as Go decodes it (400), not a 500', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ audiences: 'api' }, 'json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.audiences of type []string'],
      [{ expirationSeconds: 3600.5 }, 'json: cannot unmarshal number into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64'],
      [{ boundObjectRef: { kind: 'Secret', apiVersion: 1, name: 's' } }, 'json: cannot unmarshal number into Go struct field BoundObjectReference.spec.boundObjectRef.apiVersion of type string'],
    ];
    for (const [spec, message] of cases) {
      const answer = await server.client().raw({
        method: 'POST',
        path: '/api/v1/namespaces/default/serviceaccounts/default/token',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
      });
      expect(answer.statusCode, message).toBe(400);
      expect(JSON.parse(answer.body.toString()).message).toBe(`TokenRequest in version "v1" cannot be handled as a TokenRequest: ${message}`);
    }
  });

  it('answers 404 for a missing service account and keeps the subresource behind RBAC', async () => {
    await expect(kubectl(server, ['create', 'token', 'nobody', '-n', 'default'])).rejects.toThrow('serviceaccounts "nobody" not found');
    const token = (await kubectl(server, ['create', 'token', 'default', '-n', 'default'])).trim();
    // A service account has no right to mint tokens (create on serviceaccounts/token) by default.
    const answer = await httpsCall(server.url, 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', {
      ca,
      token,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    });
    expect(answer.code).toBe(403);
    expect(answer.body.message).toContain('cannot create resource "serviceaccounts/token" in API group "" in the namespace "default"');
  });

  it('serves TokenRequest and the token to @kubernetes/client-node; TokenReview accepts the token', async () => {
    const core = (() => {
      const config = new k8s.KubeConfig();
      config.loadFromFile(server.kubeconfig);
      return config.makeApiClient(k8s.CoreV1Api);
    })();
    const request = await core.createNamespacedServiceAccountToken({
      name: 'default',
      namespace: 'default',
      body: { spec: { audiences: [], expirationSeconds: 7200 } },
    });
    const token = request.status?.token ?? '';
    expect(request.spec.expirationSeconds).toBe(7200);
    expect(request.spec.audiences).toEqual([issuer]);
    const review = await tokenConfig(token).makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(review.status?.userInfo?.username).toBe('system:serviceaccount:default:default');

    const tokenReview = await admin.request<{ status: Record<string, unknown> }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    expect(tokenReview.status).toMatchObject({ authenticated: true, user: { username: 'system:serviceaccount:default:default' } });
  });

  it('serves OIDC discovery to service accounts, with upstream Cache-Control', async () => {
    const token = (await kubectl(server, ['create', 'token', 'default', '-n', 'default'])).trim();
    const configuration = await httpsCall(server.url, 'GET', '/.well-known/openid-configuration', { ca, token });
    expect(configuration.code).toBe(200);
    expect(configuration.body).toEqual({
      issuer,
      jwks_uri: `${issuer}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = await httpsCall(server.url, 'GET', '/openid/v1/jwks', { ca, token });
    expect(jwks.code).toBe(200);
    const kid = (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
    expect(jwks.body.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', kid, e: 'AQAB' })]);
    const raw = await admin.raw({ method: 'GET', path: '/openid/v1/jwks' });
    expect(raw.headers['cache-control']).toBe('public, max-age=3600');
    expect(raw.headers['content-type']).toBe('application/jwk-set+json');
    // Anonymous callers are not in system:serviceaccounts.
    expect((await httpsCall(server.url, 'GET', '/openid/v1/jwks', { ca })).code).toBe(403);
  });

  it('OpenAPI: /openapi/v2 and /openapi/v3/api/v1 describe POST serviceaccounts/{name}/token; the v3 index lists the root and OIDC documents', async () => {
    const tokenPath = '/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token';
    const v2 = JSON.parse((await admin.raw({ method: 'GET', path: '/openapi/v2' })).body.toString()) as { paths: Record<string, Record<string, { operationId?: string }>>; definitions: Record<string, unknown> };
    expect(v2.paths[tokenPath]?.post?.operationId).toBe('createCoreV1NamespacedServiceAccountToken');
    expect(v2.definitions['io.k8s.api.authentication.v1.TokenRequest']).toBeDefined();
    const index = JSON.parse((await admin.raw({ method: 'GET', path: '/openapi/v3' })).body.toString()) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(Object.keys(index.paths)).toEqual(expect.arrayContaining(['api', 'api/v1', 'apis', 'apis/coordination.k8s.io', 'version', '.well-known/openid-configuration', 'openid/v1/jwks']));
    const v3 = async (key: string) => {
      const response = await admin.raw({ method: 'GET', path: index.paths[key]?.serverRelativeURL ?? '' });
      expect(response.statusCode).toBe(200);
      return JSON.parse(response.body.toString()) as { openapi: string; paths: Record<string, Record<string, { operationId?: string }>> };
    };
    expect((await v3('api/v1')).paths[tokenPath]?.post?.operationId).toBe('createCoreV1NamespacedServiceAccountToken');
    expect((await v3('version')).paths['/version/']?.get?.operationId).toBe('getCodeVersion');
    expect((await v3('apis')).paths['/apis/']?.get?.operationId).toBe('getAPIVersions');
    expect((await v3('.well-known/openid-configuration')).paths['/.well-known/openid-configuration/']?.get?.operationId).toBe('getServiceAccountIssuerOpenIDConfiguration');
    // kubectl explain still reads the index and its documents.
    const explained = await kubectl(server, ['explain', 'serviceaccounts']);
    expect(explained).toContain('KIND:       ServiceAccount');
  });

  it('refuses the token with 401 once the service account is deleted', async () => {
    await kubectl(server, ['create', 'serviceaccount', 'short-lived', '-n', 'default']);
    const token = (await kubectl(server, ['create', 'token', 'short-lived', '-n', 'default'])).trim();
    expect((await whoAmI(token)).code).toBe(201);
    await kubectl(server, ['delete', 'serviceaccount', 'short-lived', '-n', 'default']);
    const refused = await whoAmI(token);
    expect(refused.code).toBe(401);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
    await kubectl(server, ['create', 'serviceaccount', 'short-lived', '-n', 'default']);
    expect((await whoAmI(token)).code).toBe(401);
  });
});
