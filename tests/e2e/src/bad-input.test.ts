import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, type RestRequest } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: RestClient;
let bob: RestClient;
let anonymous: RestClient;

const path = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'kapi-tokens-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'bob-token,bob,1001,"developers"\n');
  server = await startServer({ args: [`--token-auth-file=${tokens}`] });
  admin = server.client();
  const ca = admin.config.ca;
  bob = new RestClient({ server: server.url, token: 'bob-token', ...(ca ? { ca } : {}) });
  anonymous = new RestClient({ server: server.url, ...(ca ? { ca } : {}) });
});

afterAll(async () => {
  bob?.close();
  anonymous?.close();
  await server?.stop();
});

async function send(
  client: RestClient,
  request: RestRequest,
): Promise<{
  code: number;
  status: { reason?: string; message?: string; details?: { causes?: Array<{ field?: string }> } };
}> {
  const response = await client.raw(request);
  return { code: response.statusCode, status: JSON.parse(response.body.toString() || '{}') as never };
}

async function names(): Promise<string[]> {
  const list = await admin.request<{ items: Array<{ metadata: { name: string } }> }>({ method: 'GET', path });
  return list.items.map((item) => item.metadata.name).sort();
}

const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: '1' },
  ...extra,
});

describe('bad input gets a clear Status and changes nothing', () => {
  it('malformed JSON -> 400', async () => {
    const before = await names();
    const result = await send(admin, {
      method: 'POST',
      path,
      body: Buffer.from('{"kind": "ConfigMap",'),
      contentType: 'application/json',
    });
    expect(result.code).toBe(400);
    expect(result.status.reason).toBe('BadRequest');
    expect(await names()).toEqual(before);
  });

  it('kind/apiVersion not matching the URL -> 400', async () => {
    const before = await names();
    const result = await send(admin, { method: 'POST', path, body: { ...cm('wrong-kind'), kind: 'Secret' } });
    expect(result.code).toBe(400);
    expect(await names()).toEqual(before);
  });

  it('URL name differing from the body name -> 400', async () => {
    await admin.request({ method: 'POST', path, body: cm('named') });
    const result = await send(admin, { method: 'PUT', path: `${path}/named`, body: cm('other-name') });
    expect(result.code).toBe(400);
    expect(await names()).not.toContain('other-name');
  });

  it('invalid name -> 422 Invalid with a metadata.name cause', async () => {
    const before = await names();
    const result = await send(admin, { method: 'POST', path, body: cm('Not_Valid') });
    expect(result.code).toBe(422);
    expect(result.status.reason).toBe('Invalid');
    expect(result.status.details?.causes?.map((cause) => cause.field)).toContain('metadata.name');
    expect(await names()).toEqual(before);
  });

  it('failed validation -> 422 with field causes', async () => {
    const result = await send(admin, {
      method: 'POST',
      path: '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers',
      body: {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'bad' },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, minReplicas: 3, maxReplicas: 2 },
      },
    });
    expect(result.code).toBe(422);
    expect(result.status.details?.causes?.map((cause) => cause.field)).toContain('spec.maxReplicas');
  });

  it('body over 3 MiB -> 413', async () => {
    const before = await names();
    const result = await send(admin, {
      method: 'POST',
      path,
      body: cm('huge', { data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } }),
    });
    expect(result.code).toBe(413);
    expect(await names()).toEqual(before);
  });

  it('unsupported media type -> 415', async () => {
    const result = await send(admin, {
      method: 'POST',
      path,
      body: Buffer.from('a=b'),
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(result.code).toBe(415);
    // Server-side apply is served; its CBOR form is not (upstream gates it behind CBORServingAndStorage).
    const apply = await send(admin, {
      method: 'PATCH',
      path: `${path}/named`,
      body: Buffer.from('{}'),
      contentType: 'application/apply-patch+cbor',
    });
    expect(apply.code).toBe(415);
  });

  it('unknown fields under fieldValidation=Strict -> 400 naming them', async () => {
    const before = await names();
    const result = await send(admin, {
      method: 'POST',
      path,
      query: { fieldValidation: 'Strict' },
      body: cm('strict', { bogus: true }),
    });
    expect(result.code).toBe(400);
    expect(result.status.message).toContain('bogus');
    expect(await names()).toEqual(before);
  });

  it('a write without credentials -> 403 for system:anonymous', async () => {
    const before = await names();
    const result = await send(anonymous, { method: 'POST', path, body: cm('anon') });
    expect(result.code).toBe(403);
    expect(result.status.message).toBe(
      'configmaps is forbidden: User "system:anonymous" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    expect(await names()).toEqual(before);
  });

  it('a write without RBAC permission -> 403 with Kubernetes wording', async () => {
    const before = await names();
    const result = await send(bob, { method: 'POST', path, body: cm('bobs') });
    expect(result.code).toBe(403);
    expect(result.status.message).toBe(
      'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    expect(await names()).toEqual(before);
  });

  it('a stale update -> 409 with the conflict text', async () => {
    const current = await admin.request<{ metadata: { resourceVersion: string } }>({
      method: 'GET',
      path: `${path}/named`,
    });
    await admin.request({
      method: 'PUT',
      path: `${path}/named`,
      body: {
        ...cm('named'),
        metadata: { name: 'named', resourceVersion: current.metadata.resourceVersion },
        data: { a: '2' },
      },
    });
    const result = await send(admin, {
      method: 'PUT',
      path: `${path}/named`,
      body: {
        ...cm('named'),
        metadata: { name: 'named', resourceVersion: current.metadata.resourceVersion },
        data: { a: '3' },
      },
    });
    expect(result.code).toBe(409);
    expect(result.status.message).toBe(
      'Operation cannot be fulfilled on configmaps "named": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('a create into a missing namespace -> 404', async () => {
    const result = await send(admin, {
      method: 'POST',
      path: '/api/v1/namespaces/nope/configmaps',
      body: cm('x'),
    });
    expect(result.code).toBe(404);
    expect(result.status.message).toBe('namespaces "nope" not found');
  });
});
