import { StatusError } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startServer, type TestServer } from './harness.js';

const group = 'sub.example.com';
const poolsPath = `/apis/${group}/v1/namespaces/default/pools`;

/**
 * A two-version CRD: v1 has status and scale subresources, a Replicas column and `.spec.tier` selectable;
 * v2 has only status, a Tier column and `.spec.color` selectable.
 */
const poolsCrd = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `pools.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'pools', singular: 'pool', kind: 'Pool' },
    versions: ['v1', 'v2'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', properties: { replicas: { type: 'integer' }, tier: { type: 'string' }, color: { type: 'string' } } },
            status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
          },
        },
      },
      subresources:
        name === 'v1'
          ? { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } }
          : { status: {} },
      additionalPrinterColumns:
        name === 'v1'
          ? [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }]
          : [{ name: 'Tier', type: 'string', jsonPath: '.spec.tier' }],
      selectableFields: [{ jsonPath: name === 'v1' ? '.spec.tier' : '.spec.color' }],
    })),
  },
});

const pool = (name: string, spec: Record<string, unknown>, namespace = 'default') =>
  JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Pool', metadata: { name, namespace }, spec });

interface Scale {
  kind: string;
  apiVersion: string;
  metadata: { name: string; namespace: string; resourceVersion: string; uid: string };
  spec: { replicas: number };
  status: { replicas: number; selector?: string };
}

async function refusal(promise: Promise<unknown>): Promise<StatusError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!StatusError.isInstance(error)) throw new Error(`expected a Status refusal, got ${String(error)}`);
  return error;
}

describe('custom resources: subresources, per-version serving, discovery, namespaces and storage versions', () => {
  let server: TestServer;
  let client: RestClient;

  beforeAll(async () => {
    server = await startServer();
    client = server.client();
    await kubectl(server, ['apply', '-f', '-'], poolsCrd);
    await kubectl(server, ['wait', '--for=condition=Established', `crd/pools.${group}`, '--timeout=30s']);
    await kubectl(server, ['create', '-f', '-'], pool('web', { replicas: 2, tier: 'front', color: 'blue' }));
    await kubectl(server, ['create', '-f', '-'], pool('db', { replicas: 1, tier: 'back', color: 'red' }));
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('lists pools/scale in discovery as autoscaling/v1 Scale at v1 only', async () => {
    const v1 = JSON.parse(await kubectl(server, ['get', '--raw', `/apis/${group}/v1`])) as { resources: Array<Record<string, unknown>> };
    expect(v1.resources.find((r) => r['name'] === 'pools/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    const v2 = JSON.parse(await kubectl(server, ['get', '--raw', `/apis/${group}/v2`])) as { resources: Array<{ name: string }> };
    expect(v2.resources.map((r) => r.name).sort()).toEqual(['pools', 'pools/status']);
    await expect(kubectl(server, ['get', '--raw', `/apis/${group}/v2/namespaces/default/pools/web/scale`])).rejects.toThrow('NotFound');
  });

  it('scales with kubectl scale and serves the Scale from the CR\'s paths', async () => {
    await kubectl(server, ['scale', `pools.v1.${group}`, 'web', '--replicas=5']);
    expect(await kubectl(server, ['get', `pools.v1.${group}`, 'web', '-o', 'jsonpath={.spec.replicas}'])).toBe('5');
    const current = JSON.parse(await kubectl(server, ['get', `pools.v1.${group}`, 'web', '-o', 'json'])) as Record<string, unknown>;
    await client.request({ method: 'PUT', path: `${poolsPath}/web/status`, body: { ...current, status: { replicas: 4, selector: 'app=web' } } });
    const scale = await client.request<Scale>({ method: 'GET', path: `${poolsPath}/web/scale` });
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 5 },
      status: { replicas: 4, selector: 'app=web' },
    });
  });

  it('PUT and PATCH of /scale: resourceVersion precondition, validation, dryRun', async () => {
    const scale = await client.request<Scale>({ method: 'GET', path: `${poolsPath}/db/scale` });
    const updated = await client.request<Scale>({ method: 'PUT', path: `${poolsPath}/db/scale`, body: { ...scale, spec: { replicas: 2 } } });
    expect(updated.spec.replicas).toBe(2);
    expect(updated.metadata.resourceVersion).not.toBe(scale.metadata.resourceVersion);
    const stale = await refusal(client.request({ method: 'PUT', path: `${poolsPath}/db/scale`, body: { ...scale, spec: { replicas: 9 } } }));
    expect(stale.status).toMatchObject({ code: 409, reason: 'Conflict' });
    const negative = await refusal(
      client.request({ method: 'PATCH', path: `${poolsPath}/db/scale`, contentType: 'application/merge-patch+json', body: { spec: { replicas: -1 } } }),
    );
    expect(negative.status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: `Pool.${group} "db" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer`,
    });
    const dry = await client.request<Scale>({
      method: 'PATCH',
      path: `${poolsPath}/db/scale`,
      query: { dryRun: 'All' },
      contentType: 'application/json-patch+json',
      body: [{ op: 'replace', path: '/spec/replicas', value: 8 }],
    });
    expect(dry.spec.replicas).toBe(8);
    expect(await kubectl(server, ['get', `pools.v1.${group}`, 'db', '-o', 'jsonpath={.spec.replicas}'])).toBe('2');
    await kubectl(server, ['create', '-f', '-'], pool('empty', { tier: 'none' }));
    const unset = await refusal(
      client.request({ method: 'PATCH', path: `${poolsPath}/empty/scale`, contentType: 'application/merge-patch+json', body: { metadata: { labels: { a: 'b' } } } }),
    );
    expect(unset.status).toMatchObject({ code: 400, message: 'the spec replicas field ".spec.replicas" cannot be empty' });
    const missing = await refusal(client.request({ method: 'GET', path: `${poolsPath}/nothing/scale` }));
    expect(missing.status).toMatchObject({ code: 404, message: `pools.${group} "nothing" not found` });
  });

  it('server-side applies a Scale: replicas at specReplicasPath, managedFields on the pool, conflicts unless forced', async () => {
    await kubectl(server, ['apply', '--server-side', '--field-manager=owner', '-f', '-'], pool('api', { replicas: 1, tier: 'mid' }));
    const applyScale = (manager: string, replicas: number, force?: boolean) =>
      client.request<Scale>({
        method: 'PATCH',
        path: `${poolsPath}/api/scale`,
        query: { fieldManager: manager, ...(force ? { force: 'true' } : {}) },
        contentType: 'application/apply-patch+yaml',
        body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'api' }, spec: { replicas } },
      });
    const conflict = await refusal(applyScale('autoscaler', 3));
    expect(conflict.status).toMatchObject({ code: 409, reason: 'Conflict', message: 'Apply failed with 1 conflict: conflict with "owner": .spec.replicas' });
    expect(await kubectl(server, ['get', `pools.v1.${group}`, 'api', '-o', 'jsonpath={.spec.replicas}'])).toBe('1');

    const forced = await applyScale('autoscaler', 3, true);
    expect(forced).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 } });
    const scaled = await client.request<{ spec: Record<string, unknown>; metadata: { managedFields: Array<Record<string, unknown>> } }>({
      method: 'GET',
      path: `${poolsPath}/api`,
    });
    expect(scaled.spec).toEqual({ replicas: 3, tier: 'mid' });
    expect(scaled.metadata.managedFields).toHaveLength(2);
    expect(scaled.metadata.managedFields).toEqual(expect.arrayContaining([
      expect.objectContaining({ manager: 'owner', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:tier': {} } } }),
      expect.objectContaining({ manager: 'autoscaler', operation: 'Apply', subresource: 'scale', apiVersion: `${group}/v1`, fieldsV1: { 'f:spec': { 'f:replicas': {} } } }),
    ]));
    // The owner of the replicas now is the autoscaler: its next apply needs no force.
    expect((await applyScale('autoscaler', 4)).spec.replicas).toBe(4);

    const wrongKind = await refusal(
      client.request({ method: 'PATCH', path: `${poolsPath}/api/scale`, query: { fieldManager: 'x' }, contentType: 'application/apply-patch+yaml', body: { apiVersion: `${group}/v1`, kind: 'Pool', metadata: { name: 'api' } } }),
    );
    expect(wrongKind.status).toMatchObject({ code: 400, message: `invalid object type: ${group}/v1, Kind=Pool` });
    const noManager = await refusal(
      client.request({ method: 'PATCH', path: `${poolsPath}/api/scale`, contentType: 'application/apply-patch+yaml', body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'api' } } }),
    );
    expect(noManager.status).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(noManager.status.message).toContain('fieldManager: Required value: is required for apply patch');
  });

  it('publishes /status and /scale (autoscaling/v1 Scale) in OpenAPI v2 and v3, per version', async () => {
    type Document = { paths: Record<string, Record<string, { operationId?: string; 'x-kubernetes-group-version-kind'?: unknown }>> };
    const item = `/apis/${group}/v1/namespaces/{namespace}/pools/{name}`;
    const v3 = JSON.parse(await kubectl(server, ['get', '--raw', `/openapi/v3/apis/${group}/v1`])) as Document & { components: { schemas: Record<string, unknown> } };
    expect(Object.keys(v3.paths)).toEqual(expect.arrayContaining([`${item}/status`, `${item}/scale`]));
    expect(v3.paths[`${item}/scale`]?.['get']).toMatchObject({
      operationId: 'readSubExampleComV1NamespacedPoolScale',
      'x-kubernetes-group-version-kind': { group: 'autoscaling', kind: 'Scale', version: 'v1' },
    });
    expect(Object.keys(v3.paths[`${item}/scale`] ?? {}).sort()).toEqual(['get', 'parameters', 'patch', 'put']);
    expect(v3.components.schemas).toHaveProperty(['io.k8s.api.autoscaling.v1.Scale']);
    expect(v3.components.schemas).toHaveProperty(['io.k8s.api.autoscaling.v1.ScaleSpec']);
    const v2Version = JSON.parse(await kubectl(server, ['get', '--raw', `/openapi/v3/apis/${group}/v2`])) as Document;
    expect(Object.keys(v2Version.paths)).toContain(`/apis/${group}/v2/namespaces/{namespace}/pools/{name}/status`);
    expect(Object.keys(v2Version.paths)).not.toContain(`/apis/${group}/v2/namespaces/{namespace}/pools/{name}/scale`);
    const swagger = JSON.parse(await kubectl(server, ['get', '--raw', '/openapi/v2'])) as Document & { definitions: Record<string, unknown> };
    expect(swagger.paths[`${item}/scale`]?.['put']?.operationId).toBe('replaceSubExampleComV1NamespacedPoolScale');
    expect(swagger.definitions).toHaveProperty(['io.k8s.api.autoscaling.v1.ScaleStatus']);
  });

  it('shows each version\'s printer columns', async () => {
    const v1 = await kubectl(server, ['get', `pools.v1.${group}`]);
    expect(v1.split('\n')[0]).toMatch(/^NAME\s+REPLICAS\s+AGE$/);
    expect(v1).toMatch(/web\s+5\s/);
    const v2 = await kubectl(server, ['get', `pools.v2.${group}`]);
    expect(v2.split('\n')[0]).toMatch(/^NAME\s+TIER\s+AGE$/);
    expect(v2).toMatch(/web\s+front\s/);
  });

  it('selects by each version\'s selectable fields and refuses the others', async () => {
    const front = await kubectl(server, ['get', `pools.v1.${group}`, '--field-selector=spec.tier=front', '-o', 'name']);
    expect(front.trim()).toBe(`pool.${group}/web`);
    const red = await kubectl(server, ['get', `pools.v2.${group}`, '--field-selector=spec.color=red', '-o', 'name']);
    expect(red.trim()).toBe(`pool.${group}/db`);
    await expect(kubectl(server, ['get', `pools.v2.${group}`, '--field-selector=spec.tier=front'])).rejects.toThrow(
      'field label not supported: spec.tier',
    );
    const refused = await refusal(client.request({ method: 'GET', path: `${poolsPath}`, query: { fieldSelector: 'spec.color=red' } }));
    expect(refused.status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'field label not supported: spec.color' });
  });

  it('deletes a namespace\'s custom resources with the namespace', async () => {
    await kubectl(server, ['create', 'namespace', 'doomed']);
    await kubectl(server, ['create', '-f', '-'], pool('inside', { replicas: 1 }, 'doomed'));
    await kubectl(server, ['delete', 'namespace', 'doomed', '--timeout=60s']);
    await expect(kubectl(server, ['get', 'namespace', 'doomed'])).rejects.toThrow('NotFound');
    // The namespace's finalizer is removed only once its custom resources are gone.
    const left = await client.request<{ items: unknown[] }>({ method: 'GET', path: `/apis/${group}/v1/namespaces/doomed/pools` });
    expect(left.items).toEqual([]);
    expect(await kubectl(server, ['get', 'pools', '-A', '-o', 'name'])).not.toContain('inside');
  });

  it('publishes an installed CRD\'s StorageVersion without rereading every other one', async () => {
    const storageVersionReads = async () => {
      const metrics = await kubectl(server, ['get', '--raw', '/metrics']);
      return metrics
        .split('\n')
        .filter((line) => line.startsWith('apiserver_request_total{') && line.includes('resource="storageversions"') && line.includes('verb="GET"'))
        .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    };
    const builtIns = JSON.parse(await kubectl(server, ['get', '--raw', '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions'])) as { items: unknown[] };
    expect(builtIns.items.length).toBeGreaterThan(10);
    const before = await storageVersionReads();
    await kubectl(server, ['apply', '-f', '-'], poolsCrd.replaceAll('pools', 'lakes').replaceAll('pool', 'lake').replaceAll('Pool', 'Lake'));
    const name = `/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/${group}.lakes`;
    let published = '';
    for (let attempt = 0; attempt < 100 && !published; attempt++) {
      published = await kubectl(server, ['get', '--raw', name]).catch(() => '');
      if (!published) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(published).toContain(`"encodingVersion":"${group}/v1"`);
    // One CRD install reads its own StorageVersion (and a few background readers may), not all of them.
    expect((await storageVersionReads()) - before).toBeLessThan(5);
  });

  it('lists custom resources in aggregated discovery: versions kube-aware sorted, per-version subresources', async () => {
    const raw = await client.raw({ method: 'GET', path: '/apis', accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    expect(raw.headers['content-type']).toContain('apidiscovery.k8s.io');
    const document = JSON.parse(raw.body.toString('utf8')) as {
      items: Array<{ metadata: { name: string }; versions: Array<{ version: string; resources: Array<Record<string, unknown>> }> }>;
    };
    const entry = document.items.find((item) => item.metadata.name === group);
    expect(entry?.versions.map((v) => v.version)).toEqual(['v2', 'v1']);
    const pools = (version: string) => entry?.versions.find((v) => v.version === version)?.resources.find((r) => r['resource'] === 'pools');
    expect(pools('v1')).toMatchObject({
      responseKind: { group, version: 'v1', kind: 'Pool' },
      scope: 'Namespaced',
      singularResource: 'pool',
      subresources: [
        { subresource: 'status', responseKind: { group, version: 'v1', kind: 'Pool' }, verbs: ['get', 'patch', 'update'] },
        { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      ],
    });
    expect(pools('v2')?.['subresources']).toEqual([{ subresource: 'status', responseKind: { group, version: 'v2', kind: 'Pool' }, verbs: ['get', 'patch', 'update'] }]);
  });

  it('accepts no custom resource write before its StorageVersion is published (the write barrier)', async () => {
    await kubectl(server, ['apply', '-f', '-'], poolsCrd.replaceAll('pools', 'rivers').replaceAll('pool', 'river').replaceAll('Pool', 'River'));
    const path = `/apis/${group}/v1/namespaces/default/rivers`;
    const refusals = new Map<number, number>();
    let created: { metadata: { resourceVersion: string } } | undefined;
    for (let attempt = 0; attempt < 600 && !created; attempt++) {
      const answer = await client.raw({ method: 'POST', path, body: JSON.parse(pool('first', { replicas: 1 }).replaceAll('Pool', 'River')) as object });
      if (answer.statusCode === 201) created = JSON.parse(answer.body.toString('utf8')) as typeof created;
      else refusals.set(answer.statusCode, (refusals.get(answer.statusCode) ?? 0) + 1);
      if (answer.statusCode === 503) expect(answer.body.toString('utf8')).toContain(`wait for storage version registration to complete for resource: rivers.${group}`);
    }
    expect([...refusals.keys()].every((code) => code === 404 || code === 503)).toBe(true);
    const storageVersion = await client.request<{ metadata: { resourceVersion: string }; status: { storageVersions: Array<{ encodingVersion: string }> } }>({
      method: 'GET',
      path: `/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/${group}.rivers`,
    });
    expect(storageVersion.status.storageVersions[0]?.encodingVersion).toBe(`${group}/v1`);
    // Revisions are global: the StorageVersion was written before the first custom resource was.
    expect(Number(storageVersion.metadata.resourceVersion)).toBeLessThan(Number(created?.metadata.resourceVersion));
  });
});
