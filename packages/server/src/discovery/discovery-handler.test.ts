import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscoveryHandler, negotiateDiscovery } from './discovery-handler.js';
import { aggregatedDiscoveryDocument, apiGroupListDocument, byGroupPriority, type InstalledResource } from './discovery-documents.js';
import { localStorageVersionHash, sampleResources } from './test-resources.js';
import { startTestServer, type TestServer } from './test-server.js';

const v2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const v2beta1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const kubectlAccept = `${v2},${v2beta1},application/json`;

describe('discovery over HTTP', () => {
  let server: TestServer;
  const resources: InstalledResource[] = sampleResources();
  beforeAll(async () => {
    server = await startTestServer(createDiscoveryHandler({ resources: () => resources }));
  });
  afterAll(() => server.close());

  async function json(path: string, accept?: string): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const result = await server.get(path, accept ? { Accept: accept } : {});
    return { status: result.status, body: JSON.parse(result.text) as Record<string, unknown>, headers: result.headers };
  }

  it('serves /api as APIVersions', async () => {
    const { status, body } = await json('/api');
    expect(status).toBe(200);
    const port = new URL(server.url).port;
    expect(body).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }],
    });
  });

  it('serves /api/v1 with status subresources and storage version hashes', async () => {
    const { body } = await json('/api/v1');
    expect(body).toEqual({
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        {
          name: 'configmaps',
          singularName: 'configmap',
          namespaced: true,
          kind: 'ConfigMap',
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['cm'],
          storageVersionHash: localStorageVersionHash('', 'v1', 'ConfigMap'),
        },
        {
          name: 'namespaces',
          singularName: 'namespace',
          namespaced: false,
          kind: 'Namespace',
          verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['ns'],
          storageVersionHash: localStorageVersionHash('', 'v1', 'Namespace'),
        },
        { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
      ],
    });
  });

  it('matches the upstream storageVersionHash test vectors', () => {
    expect(localStorageVersionHash('', 'v1', 'Pod')).toBe('xPOwRZ+Yhw8=');
    expect(localStorageVersionHash('apps', 'v1', 'Deployment')).toBe('8aSe+NMegvE=');
  });

  it('serves /apis, /apis/<group> and /apis/<group>/<version>', async () => {
    const { body } = await json('/apis');
    expect(body.kind).toBe('APIGroupList');
    expect(body.apiVersion).toBe('v1');
    const groups = body.groups as { name: string; versions: unknown[]; preferredVersion: unknown }[];
    expect(groups.map((group) => group.name)).toEqual(['apps', 'example.com']);
    expect(groups[1]).toMatchObject({
      versions: [
        { groupVersion: 'example.com/v1', version: 'v1' },
        { groupVersion: 'example.com/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
    });

    const group = await json('/apis/example.com');
    expect(group.body).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'example.com',
      versions: [
        { groupVersion: 'example.com/v1', version: 'v1' },
        { groupVersion: 'example.com/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
    });

    const v1beta1 = await json('/apis/example.com/v1beta1/');
    expect(v1beta1.body).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'example.com/v1beta1' });
    expect((v1beta1.body.resources as { name: string }[]).map((resource) => resource.name)).toEqual(['widgets', 'widgets/status']);
    const v1 = await json('/apis/example.com/v1');
    expect(v1.body.resources).toEqual([
      { name: 'gadgets', singularName: 'gadget', namespaced: false, kind: 'Gadget', verbs: expect.any(Array) },
      expect.objectContaining({ name: 'widgets', shortNames: ['wd'], storageVersionHash: localStorageVersionHash('example.com', 'v1', 'Widget') }),
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('answers 404 Status for unknown groups and versions, and leaves resource paths alone', async () => {
    for (const path of ['/apis/nope', '/apis/apps/v2', '/api/v2', '/apis/example.com/v2']) {
      const { status, body } = await json(path);
      expect(status, path).toBe(404);
      expect(body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        details: {},
        code: 404,
      });
    }
    const deeper = await server.get('/api/v1/configmaps');
    expect(deeper.text).toBe('404 page not found\n');
  });

  it('serves aggregated discovery v2 for /apis when negotiated', async () => {
    const { status, headers, body } = await json('/apis', kubectlAccept);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe(v2);
    expect(headers.get('etag')).toMatch(/^"[0-9a-f]+"$/);
    expect(body.kind).toBe('APIGroupDiscoveryList');
    expect(body.apiVersion).toBe('apidiscovery.k8s.io/v2');
    const items = body.items as { metadata: { name: string }; versions: { version: string; freshness: string; resources: unknown[] }[] }[];
    expect(items.map((item) => item.metadata.name)).toEqual(['apps', 'example.com']);
    expect(items[0]).toEqual({
      metadata: { name: 'apps', creationTimestamp: null },
      versions: [
        {
          version: 'v1',
          resources: [
            {
              resource: 'deployments',
              responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
              scope: 'Namespaced',
              singularResource: 'deployment',
              verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
              shortNames: ['deploy'],
              categories: ['all'],
              subresources: [
                { subresource: 'status', responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
              ],
            },
          ],
          freshness: 'Current',
        },
      ],
    });
    expect(JSON.stringify(body)).not.toContain('storageVersionHash');
    const widgetsV1beta1 = items[1]?.versions.find((version) => version.version === 'v1beta1');
    expect(widgetsV1beta1?.resources).toEqual([expect.objectContaining({ resource: 'widgets', responseKind: { group: 'example.com', version: 'v1beta1', kind: 'Widget' } })]);

    const again = await server.get('/apis', { Accept: kubectlAccept, 'If-None-Match': headers.get('etag') ?? '' });
    expect(again.status).toBe(304);
  });

  it('orders groups by priority (highest first, ties by name) in /apis and aggregated discovery, keeping each group\'s versions', () => {
    const priority = (group: string) => (group === 'example.com' ? 2000 : 1000);
    const ordered = byGroupPriority(resources, priority);
    expect(apiGroupListDocument(ordered, []).groups.map((group) => group.name)).toEqual(['example.com', 'apps']);
    const aggregated = aggregatedDiscoveryDocument(ordered, 'apis');
    expect(aggregated.items.map((item) => item.metadata.name)).toEqual(['example.com', 'apps']);
    expect(aggregated.items[0]?.versions.map((version) => version.version)).toEqual(
      aggregatedDiscoveryDocument(resources, 'apis').items.find((item) => item.metadata.name === 'example.com')?.versions.map((version) => version.version),
    );
    // Equal priorities: by name.
    expect(apiGroupListDocument(byGroupPriority([...resources].reverse(), () => 0), []).groups.map((group) => group.name)).toEqual(['apps', 'example.com']);
  });

  it('serves the core group on /api in aggregated form, and v2beta1 when asked', async () => {
    const { headers, body } = await json('/api', `${v2beta1},application/json`);
    expect(headers.get('content-type')).toBe(v2beta1);
    expect(body.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    const items = body.items as { metadata: Record<string, unknown>; versions: { version: string; resources: { resource: string; scope: string }[] }[] }[];
    expect(items).toHaveLength(1);
    expect(items[0]?.metadata).toEqual({ creationTimestamp: null });
    expect(items[0]?.versions[0]?.resources.map((resource) => [resource.resource, resource.scope])).toEqual([
      ['configmaps', 'Namespaced'],
      ['namespaces', 'Cluster'],
    ]);
  });

  it('falls back to the legacy documents for plain JSON and refuses unsupported media types', async () => {
    const legacy = await json('/apis', 'application/json, */*');
    expect(legacy.body.kind).toBe('APIGroupList');
    expect(legacy.headers.get('content-type')).toBe('application/json');
    const refused = await json('/apis', 'application/vnd.kubernetes.protobuf');
    expect(refused.status).toBe(406);
    expect(refused.body.reason).toBe('NotAcceptable');
  });

  it('sees newly installed resources at once', async () => {
    resources.push({ definition: { group: 'batch', resource: 'jobs', kind: 'Job', namespaced: true, versions: ['v1'] } });
    const { body } = await json('/apis/batch/v1');
    expect((body.resources as { name: string }[])[0]?.name).toBe('jobs');
    resources.pop();
    expect((await json('/apis/batch')).status).toBe(404);
  });
});

describe('negotiateDiscovery', () => {
  it('picks by order and quality', () => {
    expect(negotiateDiscovery(undefined)).toBe('legacy');
    expect(negotiateDiscovery(kubectlAccept)).toBe('v2');
    expect(negotiateDiscovery(`application/json;q=0.5,${v2beta1}`)).toBe('v2beta1');
    expect(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList')).toBeUndefined();
    expect(negotiateDiscovery('text/html, */*;q=0.8')).toBe('legacy');
  });
});

describe('passUnknown', () => {
  it('leaves unknown groups to a delegate', async () => {
    const server = await startTestServer(createDiscoveryHandler({ resources: sampleResources, passUnknown: true, serverAddressByClientCIDRs: [] }));
    try {
      expect((await server.get('/apis/nope')).text).toBe('404 page not found\n');
      expect(JSON.parse((await server.get('/api')).text)).toMatchObject({ serverAddressByClientCIDRs: [] });
    } finally {
      await server.close();
    }
  });
});
