import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient } from '@kapi/client';
import { generateCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertificateAndKey } from '@kapi/server';
import { startAggregatedServer, type TestAggregatedServer } from './aggregated-server.js';
import { httpsCall, type HttpsCallOptions } from './https-call.js';
import { startServer, type TestServer } from './harness.js';
import { bindClusterRole, rbacPath } from './rbac-session.js';

// The sample aggregated server (apps/aggregated-server, run from its dist) talked to directly, the way the
// main server's proxy talks to it: front-proxy client certificate + X-Remote-* headers, or a bearer token
// the main server reviews; the main server's RBAC decides through SubjectAccessReview.
let main: TestServer;
let admin: RestClient;
let wardle: TestAggregatedServer;
let workDir: string;
let frontProxyCA: CertificateAndKey;
let frontProxy: CertificateAndKey;

const group = 'wardle.example.com';
const flunders = (version: string, namespace = 'default') => `/apis/${group}/${version}/namespaces/${namespace}/flunders`;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kapi-wardle-test-'));
  const tokens = join(workDir, 'tokens.csv');
  writeFileSync(tokens, 'alice-token,alice,2001,"wardle-users"\nbob-token,bob,2002\n');
  main = await startServer({ args: [`--token-auth-file=${tokens}`] });
  admin = main.client();
  frontProxyCA = generateCertificateAuthority({ commonName: 'front-proxy-ca' });
  frontProxy = issueClientCertificate(frontProxyCA, { commonName: 'front-proxy-client' });
  const caFile = join(workDir, 'front-proxy-ca.crt');
  writeFileSync(caFile, frontProxyCA.certificatePem);
  wardle = await startAggregatedServer(main, {
    args: [`--requestheader-client-ca-file=${caFile}`, '--requestheader-allowed-names=front-proxy-client'],
  });
  // alice may do everything on wardle resources (the aggregated ClusterRole the server registered); bob nothing.
  await bindClusterRole(admin, 'alice-wardle-admin', 'wardle-admin', { kind: 'User', name: 'alice' });
}, 120_000);

afterAll(async () => {
  await wardle?.stop();
  await main?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** As the front proxy for `user`: its client certificate plus the identity headers. */
function asProxiedUser(user: string, groups: string[] = [], extra: Partial<HttpsCallOptions> = {}): HttpsCallOptions {
  return {
    ca: wardle.ca,
    cert: frontProxy.certificatePem,
    key: frontProxy.privateKeyPem,
    headers: { 'X-Remote-User': user, 'X-Remote-Group': groups },
    ...extra,
  };
}

const call = (method: string, path: string, options: HttpsCallOptions) => httpsCall(wardle.url, method, path, options);

/** Repeats `attempt` until its code is `code` (a new RBAC binding reaches the main server's authorizer by watch). */
async function until(code: number, attempt: () => ReturnType<typeof httpsCall>) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await attempt();
    if (answer.code === code || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('authentication and authorization delegated to the main server', () => {
  it('serves a front-proxied user the main server RBAC allows', async () => {
    const answer = await until(200, () => call('GET', flunders('v1beta1'), asProxiedUser('alice')));
    expect(answer.code).toBe(200);
    expect(answer.body).toMatchObject({ kind: 'FlunderList', apiVersion: `${group}/v1beta1` });
  });

  it('refuses with 403 a front-proxied user the main server RBAC does not allow', async () => {
    const answer = await call('GET', flunders('v1beta1'), asProxiedUser('bob', ['developers']));
    expect(answer.code).toBe(403);
    expect(answer.body).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      message: `flunders.${group} is forbidden: User "bob" cannot list resource "flunders" in API group "${group}" in the namespace "default"`,
    });
  });

  it('passes the X-Remote-Group groups to the main server: a group bound to wardle-view may read, not write', async () => {
    await bindClusterRole(admin, 'wardle-viewers', 'wardle-view', { kind: 'Group', name: 'wardle-viewers' });
    const read = await until(200, () => call('GET', `/apis/${group}/v1alpha1/fischers`, asProxiedUser('carol', ['wardle-viewers'])));
    expect(read.code).toBe(200);
    const write = await call('POST', `/apis/${group}/v1alpha1/fischers`, {
      ...asProxiedUser('carol', ['wardle-viewers']),
      body: { apiVersion: `${group}/v1alpha1`, kind: 'Fischer', metadata: { name: 'carols' } },
    });
    expect(write.code).toBe(403);
    expect(write.body['message']).toBe(
      `fischers.${group} is forbidden: User "carol" cannot create resource "fischers" in API group "${group}" at the cluster scope`,
    );
    // Without the group header the same user may not even read.
    expect((await call('GET', `/apis/${group}/v1alpha1/fischers`, asProxiedUser('carol'))).code).toBe(403);
  });

  it('authenticates bearer tokens with a TokenReview on the main server', async () => {
    const allowed = await until(200, () => call('GET', flunders('v1alpha1'), { ca: wardle.ca, token: 'alice-token' }));
    expect(allowed.code).toBe(200);
    const forbidden = await call('GET', flunders('v1alpha1'), { ca: wardle.ca, token: 'bob-token' });
    expect(forbidden.code).toBe(403);
    const unknown = await call('GET', flunders('v1alpha1'), { ca: wardle.ca, token: 'nobody-token' });
    expect(unknown.code).toBe(401);
    expect(unknown.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
  });

  it('refuses with 401 identity headers over a certificate of another CA or a CN not allowed', async () => {
    const otherCA = generateCertificateAuthority({ commonName: 'other-ca' });
    const stranger = issueClientCertificate(otherCA, { commonName: 'front-proxy-client' });
    const wrongCA = await call('GET', flunders('v1beta1'), asProxiedUser('alice', [], { cert: stranger.certificatePem, key: stranger.privateKeyPem }));
    expect(wrongCA.code).toBe(401);
    expect(wrongCA.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });

    const intruder = issueClientCertificate(frontProxyCA, { commonName: 'intruder' });
    const wrongName = await call('GET', flunders('v1beta1'), asProxiedUser('alice', [], { cert: intruder.certificatePem, key: intruder.privateKeyPem }));
    expect(wrongName.code).toBe(401);

    // Without a client certificate the headers are ignored: the caller is anonymous, whom RBAC denies.
    const noCertificate = await call('GET', flunders('v1beta1'), { ca: wardle.ca, headers: { 'X-Remote-User': 'alice' } });
    expect(noCertificate.code).toBe(403);
    expect(noCertificate.body['message']).toContain('User "system:anonymous"');
  });

  it('always allows health checks and discovery', async () => {
    for (const path of ['/healthz', '/readyz', '/livez', '/apis', `/apis/${group}`, `/apis/${group}/v1beta1`, '/openapi/v2']) {
      const answer = await call('GET', path, { ca: wardle.ca });
      expect({ path, code: answer.code }).toEqual({ path, code: 200 });
    }
  });
});

describe('over HTTP/2 (what Go front proxies and curl negotiate)', () => {
  /** One request over its own HTTP/2 session, with the given TLS identity and headers. */
  async function h2Call(path: string, options: { cert?: string; key?: string; headers?: Record<string, string | string[]> } = {}): Promise<number> {
    const session = connect(wardle.url, { ca: wardle.ca, ...(options.cert ? { cert: options.cert, key: options.key } : {}) });
    session.on('error', () => undefined);
    try {
      return await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':method': 'GET', ':path': path, ...options.headers });
        stream.on('response', (headers) => resolve(Number(headers[':status'])));
        stream.on('error', reject);
        stream.resume();
        stream.end();
      });
    } finally {
      session.close();
    }
  }

  it('authenticates a front-proxied user by the identity headers, and answers health checks without credentials', async () => {
    const proxied = { cert: frontProxy.certificatePem, key: frontProxy.privateKeyPem, headers: { 'x-remote-user': 'kubernetes-admin', 'x-remote-group': ['system:masters'] } };
    expect(await h2Call(flunders('v1beta1'), proxied)).toBe(200);
    expect(await h2Call('/healthz')).toBe(200);
  });
});

describe('wardle.example.com resources', () => {
  const alice = () => asProxiedUser('alice');

  it('creates, reads, updates and deletes a Flunder, converting between v1alpha1 and v1beta1', async () => {
    await until(200, () => call('GET', flunders('v1beta1'), alice()));
    const created = await call('POST', flunders('v1alpha1'), {
      ...alice(),
      body: { apiVersion: `${group}/v1alpha1`, kind: 'Flunder', metadata: { name: 'first' }, spec: { reference: 'fish', referenceType: 'Fischer' } },
    });
    expect(created.code).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: `${group}/v1alpha1`, spec: { reference: 'fish', referenceType: 'Fischer' } });

    const beta = await call('GET', `${flunders('v1beta1')}/first`, alice());
    expect(beta.code).toBe(200);
    expect(beta.body).toMatchObject({ apiVersion: `${group}/v1beta1`, kind: 'Flunder', spec: { fischerReference: 'fish', referenceType: 'Fischer' } });
    expect(beta.body['spec']).not.toHaveProperty('reference');

    // v1alpha1 defaults referenceType to Flunder; v1beta1 reads it as flunderReference.
    const second = await call('POST', flunders('v1alpha1'), {
      ...alice(),
      body: { apiVersion: `${group}/v1alpha1`, kind: 'Flunder', metadata: { name: 'second' }, spec: { reference: 'first' } },
    });
    expect(second.body).toMatchObject({ spec: { reference: 'first', referenceType: 'Flunder' } });
    const secondBeta = await call('GET', `${flunders('v1beta1')}/second`, alice());
    expect(secondBeta.body).toMatchObject({ spec: { flunderReference: 'first', referenceType: 'Flunder' } });

    const updated = await call('PUT', `${flunders('v1beta1')}/first`, {
      ...alice(),
      body: { ...beta.body, spec: { flunderReference: 'second', referenceType: 'Flunder' } },
    });
    expect(updated.code).toBe(200);
    const alpha = await call('GET', `${flunders('v1alpha1')}/first`, alice());
    expect(alpha.body).toMatchObject({ apiVersion: `${group}/v1alpha1`, spec: { reference: 'second', referenceType: 'Flunder' } });

    const deleted = await call('DELETE', `${flunders('v1alpha1')}/first`, alice());
    expect(deleted.code).toBe(200);
    expect((await call('GET', `${flunders('v1beta1')}/first`, alice())).code).toBe(404);
  });

  it('refuses an invalid Flunder with 422 and stores nothing', async () => {
    const answer = await call('POST', flunders('v1beta1'), {
      ...alice(),
      body: { apiVersion: `${group}/v1beta1`, kind: 'Flunder', metadata: { name: 'bad' }, spec: { flunderReference: 'x', referenceType: 'Fischer' } },
    });
    expect(answer.code).toBe(422);
    expect(answer.body).toMatchObject({
      reason: 'Invalid',
      message: `Flunder.${group} "bad" is invalid: spec.flunderReference: Invalid value: "x": cannot be set if referenceType is not Flunder`,
    });
    expect((await call('GET', `${flunders('v1beta1')}/bad`, alice())).code).toBe(404);
  });

  it('streams watch events of Flunders in the version asked for', async () => {
    const list = await call('GET', flunders('v1beta1'), alice());
    const resourceVersion = (list.body['metadata'] as { resourceVersion: string }).resourceVersion;
    const { request } = await import('node:https');
    const events: Array<{ type: string; object: Record<string, unknown> }> = [];
    const watch = request(new URL(`${flunders('v1alpha1')}?watch=true&resourceVersion=${resourceVersion}`, wardle.url), {
      ca: wardle.ca,
      cert: frontProxy.certificatePem,
      key: frontProxy.privateKeyPem,
      headers: { 'X-Remote-User': 'alice' },
    });
    watch.on('response', (response) => {
      let buffer = '';
      response.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as (typeof events)[number]);
      });
    });
    watch.end();
    try {
      await call('POST', flunders('v1beta1'), {
        ...alice(),
        body: { apiVersion: `${group}/v1beta1`, kind: 'Flunder', metadata: { name: 'watched' }, spec: { fischerReference: 'f', referenceType: 'Fischer' } },
      });
      await expect.poll(() => events.map((event) => event.type), { timeout: 10_000 }).toContain('ADDED');
      expect(events[0]?.object).toMatchObject({
        apiVersion: `${group}/v1alpha1`,
        metadata: { name: 'watched' },
        spec: { reference: 'f', referenceType: 'Fischer' },
      });
    } finally {
      watch.destroy();
    }
  });

  it('refuses a Flunder named in a Fischer (BanFlunder admission)', async () => {
    const fischer = await call('POST', `/apis/${group}/v1beta1/fischers`, {
      ...alice(),
      body: { apiVersion: `${group}/v1beta1`, kind: 'Fischer', metadata: { name: 'strict' }, disallowedFlunders: ['banned'] },
    });
    expect(fischer.code).toBe(201);
    const create = () =>
      call('POST', flunders('v1alpha1'), {
        ...alice(),
        body: { apiVersion: `${group}/v1alpha1`, kind: 'Flunder', metadata: { name: 'banned' } },
      });
    const answer = await until(403, create);
    expect(answer.code).toBe(403);
    expect(answer.body).toMatchObject({
      reason: 'Forbidden',
      message: `flunders.${group} "banned" is forbidden: this name may not be used, please change the resource name`,
    });
    expect((await call('GET', `${flunders('v1beta1')}/banned`, alice())).code).toBe(404);
  });
});

describe('admission configured on the main server', () => {
  it("applies the main server's ValidatingAdmissionPolicies to Flunders, in the request's version", async () => {
    const admissionregistration = '/apis/admissionregistration.k8s.io/v1';
    await admin.request({
      method: 'POST',
      path: `${admissionregistration}/validatingadmissionpolicies`,
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'no-bad-flunders.example.com' },
        spec: {
          matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1alpha1'], resources: ['flunders'] }] },
          validations: [
            {
              expression: "!object.metadata.name.startsWith('bad-')",
              messageExpression: "'no bad flunders (' + object.apiVersion + ', ' + request.userInfo.username + ')'",
            },
          ],
        },
      },
    });
    await admin.request({
      method: 'POST',
      path: `${admissionregistration}/validatingadmissionpolicybindings`,
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'no-bad-flunders' },
        spec: { policyName: 'no-bad-flunders.example.com', validationActions: ['Deny'] },
      },
    });
    try {
      const create = (version: string, name: string, query = '') =>
        call('POST', `${flunders(version)}${query}`, {
          ...asProxiedUser('alice'),
          body: { apiVersion: `${group}/${version}`, kind: 'Flunder', metadata: { name } },
        });
      // The aggregated server watches the main server's policies: the new one applies within moments.
      const refused = await until(422, () => create('v1beta1', 'bad-one', '?dryRun=All'));
      expect(refused.body).toMatchObject({
        reason: 'Invalid',
        // The policy names v1alpha1 (matchPolicy Equivalent): the v1beta1 request is evaluated converted to it.
        message: `ValidatingAdmissionPolicy 'no-bad-flunders.example.com' with binding 'no-bad-flunders' denied request: no bad flunders (${group}/v1alpha1, alice)`,
      });
      expect((await call('GET', `${flunders('v1beta1')}/bad-one`, asProxiedUser('alice'))).code).toBe(404);
      expect((await create('v1alpha1', 'good-one')).code).toBe(201);
    } finally {
      await admin.raw({ method: 'DELETE', path: `${admissionregistration}/validatingadmissionpolicybindings/no-bad-flunders` });
    }
  });
});

describe('admission webhooks configured on the main server', () => {
  it('calls a webhook behind a Service of the main server for Flunders, and refuses what it denies', async () => {
    const ca = generateCertificateAuthority({ commonName: 'wardle-hook-ca' });
    const serving = issueServingCertificate(ca, { hosts: ['wardle-hook.default.svc'] });
    const asked: string[] = [];
    const hook = createHttpsServer({ key: serving.privateKeyPem, cert: serving.certificatePem }, (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const review = JSON.parse(body) as { request: { uid: string; name: string; kind: { kind: string } } };
        asked.push(`${review.request.kind.kind}/${review.request.name}`);
        const denied = review.request.name.startsWith('hooked-');
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: review.request.uid, allowed: !denied, ...(denied ? { status: { code: 403, message: 'no hooked flunders' } } : {}) },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const port = (hook.address() as AddressInfo).port;
    try {
      await admin.request({
        method: 'POST',
        path: '/api/v1/namespaces/default/services',
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'wardle-hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: port }] } },
      });
      await admin.request({
        method: 'POST',
        path: '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices',
        body: {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { name: 'wardle-hook-1', labels: { 'kubernetes.io/service-name': 'wardle-hook' } },
          addressType: 'IPv4',
          endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
          ports: [{ name: 'https', port }],
        },
      });
      await admin.request({
        method: 'POST',
        path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'wardle-hook' },
          webhooks: [
            {
              name: 'flunders.wardle-hook.example.com',
              clientConfig: { service: { namespace: 'default', name: 'wardle-hook', path: '/validate' }, caBundle: Buffer.from(ca.certificatePem).toString('base64') },
              rules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['*'], resources: ['flunders'] }],
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
            },
          ],
        },
      });
      const create = (name: string, query = '') =>
        call('POST', `${flunders('v1beta1')}${query}`, {
          ...asProxiedUser('alice'),
          body: { apiVersion: `${group}/v1beta1`, kind: 'Flunder', metadata: { name } },
        });
      const refused = await until(403, () => create('hooked-one', '?dryRun=All'));
      expect(refused.body).toMatchObject({
        code: 403,
        message: 'admission webhook "flunders.wardle-hook.example.com" denied the request: no hooked flunders',
      });
      expect((await create('plain-one')).code).toBe(201);
      expect(asked).toEqual(expect.arrayContaining(['Flunder/hooked-one', 'Flunder/plain-one']));
    } finally {
      await admin.raw({ method: 'DELETE', path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/wardle-hook' });
      await new Promise((resolve) => hook.close(resolve));
    }
  });
});

describe('self-registration on the main server', () => {
  it('registers its APIServices with its CA, and the Service and EndpointSlice they route to', async () => {
    const port = Number(new URL(wardle.url).port);
    for (const [version, versionPriority] of [['v1beta1', 20], ['v1alpha1', 15]] as const) {
      const apiService = await admin.request<{ spec: Record<string, unknown> }>({
        method: 'GET',
        path: `/apis/apiregistration.k8s.io/v1/apiservices/${version}.${group}`,
      });
      expect(apiService.spec).toMatchObject({
        group,
        version,
        service: { namespace: 'wardle-system', name: 'api', port: 443 },
        groupPriorityMinimum: 1000,
        versionPriority,
        caBundle: Buffer.from(wardle.ca).toString('base64'),
      });
    }
    const service = await admin.request<{ spec: { ports: unknown[] } }>({ method: 'GET', path: '/api/v1/namespaces/wardle-system/services/api' });
    expect(service.spec.ports).toMatchObject([{ port: 443, targetPort: port }]);
    const slices = await admin.request<{ items: unknown[] }>({
      method: 'GET',
      path: '/apis/discovery.k8s.io/v1/namespaces/wardle-system/endpointslices',
      query: { labelSelector: 'kubernetes.io/service-name=api' },
    });
    expect(slices.items).toMatchObject([
      { endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ port }] },
    ]);
    const binding = await admin.request<{ roleRef: unknown }>({
      method: 'GET',
      path: `${rbacPath}/clusterrolebindings/wardle:system:auth-delegator`,
    });
    expect(binding.roleRef).toMatchObject({ name: 'system:auth-delegator' });
  });
});

describe('identity lease and StorageVersions on the main server', () => {
  interface StorageVersionObject {
    status: { storageVersions?: Array<{ apiServerID: string; encodingVersion: string; decodableVersions: string[] }>; commonEncodingVersion?: string };
  }
  const storageVersion = (resource: string) =>
    admin.request<StorageVersionObject>({
      method: 'GET',
      path: `/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/${group}.${resource}`,
    });

  it('holds an identity lease and publishes the storage version of flunders and fischers', async () => {
    expect(wardle.identity).toMatch(/^apiserver-[a-z2-7]+$/);
    const lease = await admin.request<{ metadata: { labels: Record<string, string> }; spec: { holderIdentity: string } }>({
      method: 'GET',
      path: `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${wardle.identity}`,
    });
    expect(lease.spec.holderIdentity.startsWith(`${wardle.identity}_`)).toBe(true);
    for (const resource of ['flunders', 'fischers']) {
      const object = await storageVersion(resource);
      expect(object.status).toMatchObject({
        storageVersions: [
          {
            apiServerID: wardle.identity,
            encodingVersion: `${group}/v1beta1`,
            decodableVersions: [`${group}/v1beta1`, `${group}/v1alpha1`],
          },
        ],
        commonEncodingVersion: `${group}/v1beta1`,
      });
    }
  });

  it('follows a restart of the aggregated server with another --storage-version', async () => {
    const caFile = join(workDir, 'front-proxy-ca.crt');
    await wardle.stop();
    wardle = await startAggregatedServer(main, {
      args: [`--requestheader-client-ca-file=${caFile}`, '--requestheader-allowed-names=front-proxy-client', '--storage-version=v1alpha1'],
    });
    const object = await storageVersion('flunders');
    expect(object.status.storageVersions).toEqual([expect.objectContaining({ apiServerID: wardle.identity, encodingVersion: `${group}/v1alpha1` })]);
    expect(object.status.commonEncodingVersion).toBe(`${group}/v1alpha1`);
  });
});
