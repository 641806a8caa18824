import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig, type RestClient } from '@kapi/client';
import { AggregatedBackend } from './aggregated-backend.js';
import { kubectl, startServer, type TestServer } from './harness.js';

// The aggregator's remote side: proxying to a real HTTPS backend registered through a Service, an
// EndpointSlice and an APIService with caBundle, and the availability controller's conditions.
let server: TestServer;
let admin: RestClient;
let backend: AggregatedBackend;
let workDir: string;

interface APIServiceStatus {
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

const flunders = '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders';

async function available(name: string) {
  const apiService = await admin.request<APIServiceStatus>({ method: 'GET', path: `/apis/apiregistration.k8s.io/v1/apiservices/${name}` });
  return apiService.status?.conditions?.find((condition) => condition.type === 'Available');
}

/** Polls the Available condition until `predicate` holds (10 s). */
async function waitForAvailable(name: string, predicate: (condition: Awaited<ReturnType<typeof available>>) => boolean) {
  const deadline = Date.now() + 10_000;
  let last = await available(name);
  while (!predicate(last)) {
    if (Date.now() > deadline) throw new Error(`${name}: Available is ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await available(name);
  }
  return last;
}

/** A GET with extra headers (the REST client sends none), as the admin. */
function getWithHeaders(path: string, headers: Record<string, string>): Promise<number> {
  const config = loadKubeconfig(server.kubeconfig);
  return new Promise((resolve, reject) => {
    const request = httpsRequest(new URL(path, server.url), { ca: config.ca, cert: config.cert, key: config.key, headers });
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

async function create(path: string, body: unknown) {
  await admin.request({ method: 'POST', path, body });
}

function apiService(name: string, service: { name: string; port?: number }, caBundle: string) {
  const [version = '', ...group] = name.split('.');
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name },
    spec: {
      group: group.join('.'),
      version,
      service: { namespace: 'wardle', ...service },
      caBundle,
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  };
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kapi-aggregator-proxy-'));
  const tokens = join(workDir, 'tokens.csv');
  writeFileSync(tokens, 'carol-token,carol,carol-uid-7,"system:masters"\n');
  server = await startServer({ args: ['--apiservice-availability-interval=1s', `--token-auth-file=${tokens}`] });
  admin = server.client();
  const configMap = await admin.request<{ data: Record<string, string> }>({
    method: 'GET',
    path: '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
  });
  backend = new AggregatedBackend(configMap.data['requestheader-client-ca-file'] ?? '');
  await backend.start();
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } });
  await create('/api/v1/namespaces/wardle/services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'api' },
    spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] },
  });
  await create('/apis/discovery.k8s.io/v1/namespaces/wardle/endpointslices', {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'api-1', labels: { 'kubernetes.io/service-name': 'api' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'https', port: backend.port }],
  });
  await create('/apis/apiregistration.k8s.io/v1/apiservices', apiService('v1alpha1.wardle.example.com', { name: 'api' }, Buffer.from(backend.ca.certificatePem).toString('base64')));
}, 60_000);

afterAll(async () => {
  await backend?.stop();
  await server?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('the aggregator proxy', () => {
  it('publishes extension-apiserver-authentication as upstream', async () => {
    const configMap = await admin.request<{ data: Record<string, string> }>({
      method: 'GET',
      path: '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
    });
    expect(configMap.data['requestheader-client-ca-file']).toContain('BEGIN CERTIFICATE');
    expect(configMap.data['client-ca-file']).toContain('BEGIN CERTIFICATE');
    expect(JSON.parse(configMap.data['requestheader-allowed-names'] ?? '')).toEqual(['front-proxy-client']);
    expect(JSON.parse(configMap.data['requestheader-username-headers'] ?? '')).toEqual(['X-Remote-User']);
    expect(JSON.parse(configMap.data['requestheader-uid-headers'] ?? '')).toEqual(['X-Remote-Uid']);
    expect(JSON.parse(configMap.data['requestheader-group-headers'] ?? '')).toEqual(['X-Remote-Group']);
    expect(JSON.parse(configMap.data['requestheader-extra-headers-prefix'] ?? '')).toEqual(['X-Remote-Extra-']);
  });

  it('marks the APIService Available (Passed) once the discovery check succeeds', async () => {
    const condition = await waitForAvailable('v1alpha1.wardle.example.com', (c) => c?.status === 'True');
    expect(condition).toMatchObject({ status: 'True', reason: 'Passed', message: 'all checks passed' });
    const check = backend.requestsTo('/apis/wardle.example.com/v1alpha1').at(-1);
    expect(check?.headers['x-remote-user']).toBe('system:kube-aggregator');
    expect(check?.headers['x-remote-group']).toBe('system:masters');
    const out = await kubectl(server, ['get', 'apiservices', 'v1alpha1.wardle.example.com']);
    expect(out).toMatch(/v1alpha1\.wardle\.example\.com\s+wardle\/api\s+True\s+/);
  });

  it('proxies a list with the caller identity over the front-proxy client certificate', async () => {
    const list = await admin.request<{ items: Array<{ metadata: { name: string } }> }>({ method: 'GET', path: flunders });
    expect(list.items.map((item) => item.metadata.name)).toEqual(['one']);
    const seen = backend.requestsTo(flunders).at(-1);
    expect(seen?.authorized).toBe(true);
    expect(seen?.clientCN).toBe('front-proxy-client');
    expect(seen?.headers['x-remote-user']).toBe('kubernetes-admin');
    expect(seen?.headers['x-remote-group']).toBe('system:masters, system:authenticated');
    expect(seen?.headers.authorization).toBeUndefined();
  });

  it('authorizes before proxying, as kube-apiserver does: a user without RBAC gets 403 and the backend sees nothing', async () => {
    const before = backend.seen.length;
    const code = await getWithHeaders(`${flunders}/one`, { 'Impersonate-User': 'bob' });
    expect(code).toBe(403);
    expect(backend.seen.length).toBe(before);
  });

  it('sends an impersonated user with its extras, never the Impersonate-* or incoming X-Remote-* headers', async () => {
    await create('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'flunder-reader' },
      rules: [{ apiGroups: ['wardle.example.com'], resources: ['flunders'], verbs: ['get', 'list'] }],
    });
    await create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'flunder-readers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'flunder-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'wardle-users' }],
    });
    const code = await getWithHeaders(`${flunders}/one`, {
      'Impersonate-User': 'alice',
      'Impersonate-Group': 'wardle-users',
      'Impersonate-Extra-Scopes.example.com': 'read',
      'X-Remote-User': 'mallory',
    });
    expect(code).toBe(200);
    const seen = backend.requestsTo(`${flunders}/one`).at(-1);
    expect(seen?.headers['x-remote-user']).toBe('alice');
    expect(seen?.headers['x-remote-group']).toBe('wardle-users, system:authenticated');
    expect(seen?.headers['x-remote-extra-scopes.example.com']).toBe('read');
    expect(Object.keys(seen?.headers ?? {}).filter((name) => name.startsWith('impersonate-'))).toEqual([]);
  });

  it("sends a token user's UID as X-Remote-Uid, never an incoming one", async () => {
    const config = loadKubeconfig(server.kubeconfig);
    const code = await new Promise<number>((resolve, reject) => {
      const headers = { Authorization: 'Bearer carol-token', 'X-Remote-Uid': 'spoofed' };
      const request = httpsRequest(new URL(`${flunders}/one`, server.url), { ca: config.ca, headers });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    expect(code).toBe(200);
    const seen = backend.requestsTo(`${flunders}/one`).at(-1);
    expect(seen?.headers['x-remote-user']).toBe('carol');
    expect(seen?.headers['x-remote-uid']).toBe('carol-uid-7');
  });

  it('kubectl get --raw reaches the backend', async () => {
    const out = await kubectl(server, ['get', '--raw', `${flunders}/one`]);
    expect(JSON.parse(out)).toMatchObject({ kind: 'Flunder', metadata: { name: 'one' } });
  });

  it('streams watch events as the backend writes them and aborts the backend request when the client leaves', async () => {
    const config = loadKubeconfig(server.kubeconfig);
    const url = new URL(`${flunders}?watch=true`, server.url);
    const closedBefore = backend.closedWatches;
    const events: string[] = [];
    const request = httpsRequest(url, { ca: config.ca, cert: config.cert, key: config.key });
    const arrived = new Promise<void>((resolve, reject) => {
      request.on('response', (response) => {
        expect(response.statusCode).toBe(200);
        response.on('data', (chunk: Buffer) => {
          events.push(...chunk.toString().split('\n').filter(Boolean));
          if (events.length === 2) resolve();
        });
      });
      request.on('error', reject);
    });
    request.end();
    const deadline = Date.now() + 5000;
    while (backend.watches.size === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    backend.sendEvent('ADDED', 'two', '8');
    backend.sendEvent('MODIFIED', 'two', '9');
    await arrived; // the backend's stream is still open: nothing waited for its end
    expect(events.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(['ADDED', 'MODIFIED']);
    expect(backend.watches.size).toBe(1);
    request.destroy();
    while (backend.closedWatches === closedBefore && Date.now() < deadline + 5000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(backend.closedWatches).toBe(closedBefore + 1);
  });
});

describe('merged discovery and OpenAPI', () => {
  it('lists the aggregated group in /apis and serves /apis/<group>', async () => {
    const list = await admin.request<{ groups: Array<{ name: string; preferredVersion: { groupVersion: string } }> }>({ method: 'GET', path: '/apis' });
    expect(list.groups.find((group) => group.name === 'wardle.example.com')?.preferredVersion.groupVersion).toBe('wardle.example.com/v1alpha1');
    const group = await admin.request({ method: 'GET', path: '/apis/wardle.example.com' });
    expect(group).toMatchObject({ kind: 'APIGroup', name: 'wardle.example.com', versions: [{ groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' }] });
  });

  it('includes the aggregated resources in aggregated discovery (v2), Current', async () => {
    const list = await admin.request<{ items: Array<{ metadata: { name?: string }; versions: Array<{ version: string; freshness: string; resources: Array<{ resource: string; scope: string; verbs: string[] }> }> }> }>({
      method: 'GET',
      path: '/apis',
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const wardle = list.items.find((item) => item.metadata.name === 'wardle.example.com');
    expect(wardle?.versions).toEqual([
      {
        version: 'v1alpha1',
        freshness: 'Current',
        resources: [expect.objectContaining({ resource: 'flunders', scope: 'Namespaced', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] })],
      },
    ]);
  });

  it('kubectl api-resources shows the aggregated resource and kubectl explain reads its schema', async () => {
    const resources = await kubectl(server, ['api-resources', '--api-group=wardle.example.com', '--no-headers']);
    expect(resources.trim()).toMatch(/^flunders\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder$/);
    const explain = await kubectl(server, ['explain', 'flunders.spec']);
    expect(explain).toContain('FlunderSpec is what a flunder should be.');
    expect(explain).toContain('Reference names another flunder.');
    const index = await admin.request<{ paths: Record<string, { serverRelativeURL: string }> }>({ method: 'GET', path: '/openapi/v3' });
    expect(index.paths['apis/wardle.example.com/v1alpha1']?.serverRelativeURL).toBe('/openapi/v3/apis/wardle.example.com/v1alpha1?hash=0123ABCD');
    expect(index.paths['api/v1']).toBeDefined();
  });
});

describe('availability', () => {
  it('goes False (FailedDiscoveryCheck) when the backend stops, answers 503 for its group only, and recovers', async () => {
    await backend.stop();
    const down = await waitForAvailable('v1alpha1.wardle.example.com', (c) => c?.status === 'False');
    expect(down?.reason).toBe('FailedDiscoveryCheck');
    expect(down?.message).toMatch(new RegExp(`^failing or missing response from https://127\\.0\\.0\\.1:${backend.port}/apis/wardle\\.example\\.com/v1alpha1: `));
    // The proxy reads the APIService from its informer, which may see the False condition a moment after the GET above.
    let refused = await admin.raw({ method: 'GET', path: flunders });
    for (let attempt = 0; attempt < 50 && refused.body.toString().startsWith('Error trying to reach service'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      refused = await admin.raw({ method: 'GET', path: flunders });
    }
    expect(refused.statusCode).toBe(503);
    expect(refused.body.toString()).toBe('service unavailable\n');
    const other = await admin.raw({ method: 'GET', path: '/api/v1/namespaces/wardle' });
    expect(other.statusCode).toBe(200);
    expect(await kubectl(server, ['get', 'namespaces', 'wardle', '--no-headers'])).toMatch(/^wardle\s+Active\s+/);
    const out = await kubectl(server, ['get', 'apiservices', 'v1alpha1.wardle.example.com']);
    expect(out).toMatch(/wardle\/api\s+False \(FailedDiscoveryCheck\)/);
    const discovery = await admin.request<{ items: Array<{ metadata: { name?: string }; versions: Array<{ freshness: string }> }> }>({
      method: 'GET',
      path: '/apis',
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    expect(discovery.items.find((item) => item.metadata.name === 'wardle.example.com')?.versions[0]?.freshness).toBe('Stale');

    await backend.start();
    await waitForAvailable('v1alpha1.wardle.example.com', (c) => c?.status === 'True');
    // As above, the proxy's informer may see the True condition a moment after the GET.
    let recovered = await admin.raw({ method: 'GET', path: flunders });
    for (let attempt = 0; attempt < 50 && recovered.statusCode === 503; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      recovered = await admin.raw({ method: 'GET', path: flunders });
    }
    expect(recovered.statusCode).toBe(200);
  });

  it('reports ServiceNotFound, ServicePortError, EndpointsNotFound and MissingEndpoints with upstream messages', async () => {
    const caBundle = Buffer.from(backend.ca.certificatePem).toString('base64');
    await create('/apis/apiregistration.k8s.io/v1/apiservices', apiService('v1.missing.example.com', { name: 'missing' }, caBundle));
    await create('/apis/apiregistration.k8s.io/v1/apiservices', apiService('v1.port.example.com', { name: 'api', port: 444 }, caBundle));
    await create('/api/v1/namespaces/wardle/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'lonely' },
      spec: { ports: [{ name: 'https', port: 443 }] },
    });
    await create('/apis/apiregistration.k8s.io/v1/apiservices', apiService('v1.lonely.example.com', { name: 'lonely' }, caBundle));
    const notFound = await waitForAvailable('v1.missing.example.com', (c) => c?.status === 'False');
    expect(notFound).toMatchObject({ reason: 'ServiceNotFound', message: 'service/missing in "wardle" is not present' });
    const port = await waitForAvailable('v1.port.example.com', (c) => c?.status === 'False');
    expect(port).toMatchObject({ reason: 'ServicePortError', message: 'service/api in "wardle" is not listening on port 444' });
    const noSlices = await waitForAvailable('v1.lonely.example.com', (c) => c?.status === 'False');
    expect(noSlices).toMatchObject({ reason: 'EndpointsNotFound', message: 'cannot find endpointslices for service/lonely in "wardle"' });
    await create('/apis/discovery.k8s.io/v1/namespaces/wardle/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'lonely-1', labels: { 'kubernetes.io/service-name': 'lonely' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'] }],
      ports: [{ name: 'http', port: backend.port }],
    });
    const missing = await waitForAvailable('v1.lonely.example.com', (c) => c?.reason === 'MissingEndpoints');
    expect(missing?.message).toBe('endpointslices for service/lonely in "wardle" have no addresses with port name "https"');
    expect((await admin.raw({ method: 'GET', path: '/apis/missing.example.com/v1' })).statusCode).toBe(503);
  });

  it('lists an APIService never reached in /apis and /apis/<group> (as upstream), not in aggregated discovery', async () => {
    // v1.missing.example.com (created above) has no Service: its backend's discovery was never fetched.
    const list = await admin.request<{ groups: Array<{ name: string; versions: Array<{ groupVersion: string }> }> }>({ method: 'GET', path: '/apis' });
    expect(list.groups.find((group) => group.name === 'missing.example.com')?.versions).toEqual([{ groupVersion: 'missing.example.com/v1', version: 'v1' }]);
    const group = await admin.request({ method: 'GET', path: '/apis/missing.example.com' });
    expect(group).toMatchObject({
      kind: 'APIGroup',
      name: 'missing.example.com',
      preferredVersion: { groupVersion: 'missing.example.com/v1', version: 'v1' },
    });
    const discovery = await admin.request<{ items: Array<{ metadata: { name?: string } }> }>({
      method: 'GET',
      path: '/apis',
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    expect(discovery.items.map((item) => item.metadata.name)).toContain('wardle.example.com');
    expect(discovery.items.map((item) => item.metadata.name)).not.toContain('missing.example.com');
    await admin.request({ method: 'DELETE', path: '/apis/apiregistration.k8s.io/v1/apiservices/v1.missing.example.com' });
    const deadline = Date.now() + 10_000;
    let groups = list.groups;
    while (groups.some((candidate) => candidate.name === 'missing.example.com')) {
      if (Date.now() > deadline) throw new Error('missing.example.com still listed after its APIService was deleted');
      await new Promise((resolve) => setTimeout(resolve, 100));
      groups = (await admin.request<typeof list>({ method: 'GET', path: '/apis' })).groups;
    }
  });
});

describe('OpenAPI v2', () => {
  const flunderPath = '/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}';
  const swagger = async () => JSON.parse(await kubectl(server, ['get', '--raw', '/openapi/v2'])) as { paths: Record<string, unknown>; definitions: Record<string, unknown> };

  it("merges the backend's paths of its group/version and its definitions, and drops them with the APIService", async () => {
    const merged = await swagger();
    expect(Object.keys(merged.paths)).toContain(flunderPath);
    expect(Object.keys(merged.paths)).not.toContain('/apis/elsewhere.example.com/v1/things');
    expect(merged.definitions['com.example.wardle.v1alpha1.Flunder']).toMatchObject({ description: 'A Flunder, served by the test backend.' });
    expect(Object.keys(merged.paths)).toContain('/api/v1/namespaces/{namespace}/configmaps');
    await admin.request({ method: 'DELETE', path: '/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.wardle.example.com' });
    const deadline = Date.now() + 10_000;
    while (Object.keys((await swagger()).paths).includes(flunderPath)) {
      if (Date.now() > deadline) throw new Error('the flunder path is still in /openapi/v2 after its APIService was deleted');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await swagger()).definitions['com.example.wardle.v1alpha1.Flunder']).toBeUndefined();
  });
});
