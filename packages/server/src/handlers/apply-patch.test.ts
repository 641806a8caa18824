import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, widgetsPath, type TestServer } from '../test-support/test-server.js';

let api: TestServer;
const apply = { 'Content-Type': 'application/apply-patch+yaml' };
const path = (name: string, query = '') => `${widgetsPath()}/${name}${query}`;

type Entry = { manager: string; operation: string; time?: string; fieldsV1?: Record<string, unknown>; subresource?: string };
const entries = (body: Record<string, unknown>) =>
  ((body['metadata'] as { managedFields?: Entry[] }).managedFields ?? []) as Entry[];
const metadata = (body: Record<string, unknown>) => body['metadata'] as Record<string, unknown>;

const config = (name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });

beforeEach(async () => {
  api = await startTestServer();
});
afterEach(async () => {
  await api.server.shutdown();
});

async function unchanged(call: () => Promise<{ status: number; body: Record<string, unknown> }>) {
  const before = await api.storage.revision();
  const result = await call();
  expect(await api.storage.revision()).toBe(before);
  return result;
}

describe('server-side apply', () => {
  it('creates (201) through the create path, then updates (200), and a no-op changes nothing', async () => {
    const yaml = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: b\nspec:\n  size: 2\n  ports:\n  - name: http\n    port: 80\n';
    const created = await api.call('PATCH', path('b', '?fieldManager=alice'), yaml, apply);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ spec: { size: 2, color: 'blue' }, metadata: { generation: 1 } });
    expect(metadata(created.body)['uid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(entries(created.body)).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: 'example.com/v1',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as unknown as string,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:size': {} } },
      },
    ]);
    const updated = await api.call('PATCH', path('b', '?fieldManager=alice'), config('b', { size: 3, ports: [{ name: 'http', port: 80 }] }), apply);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ spec: { size: 3 }, metadata: { generation: 2 } });
    const same = await unchanged(() =>
      api.call('PATCH', path('b', '?fieldManager=alice'), config('b', { size: 3, ports: [{ name: 'http', port: 80 }] }), apply),
    );
    expect(same.status).toBe(200);
    expect(metadata(same.body)['resourceVersion']).toBe(metadata(updated.body)['resourceVersion']);
    expect(entries(same.body)).toEqual(entries(updated.body));
  });

  it('reports conflicts with 409 and the upstream message, and force=true takes the fields', async () => {
    await api.call('PATCH', path('c', '?fieldManager=alice'), config('c', { size: 1 }), apply);
    const conflict = await unchanged(() => api.call('PATCH', path('c', '?fieldManager=bob&force=false'), config('c', { size: 5 }), apply));
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "alice": .spec.size',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.size' }] },
    });
    const shared = await api.call('PATCH', path('c', '?fieldManager=bob'), config('c', { size: 1 }), apply);
    expect(shared.status).toBe(200);
    expect(entries(shared.body).map((entry) => entry.manager)).toEqual(['alice', 'bob']);
    const forced = await api.call('PATCH', path('c', '?fieldManager=bob&force=true'), config('c', { size: 5 }), apply);
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ spec: { size: 5 } });
    expect(entries(forced.body).map((entry) => entry.manager)).toEqual(['bob']);
  });

  it('prunes fields the manager stops applying unless another manager owns them', async () => {
    await api.call('PATCH', path('d', '?fieldManager=alice'), config('d', { size: 1, ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] }), apply);
    await api.call('PATCH', path('d', '?fieldManager=bob'), config('d', { ports: [{ name: 'b', port: 2 }] }), apply);
    const pruned = await api.call('PATCH', path('d', '?fieldManager=alice'), config('d', { size: 1 }), apply);
    expect(pruned.body['spec']).toEqual({ size: 1, color: 'blue', ports: [{ name: 'b', port: 2 }] });
  });

  it('records Updates of POST, PUT, patches and /status with the manager or User-Agent', async () => {
    const created = await api.call(
      'POST',
      `${widgetsPath()}?fieldManager=maker`,
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'e', labels: { a: 'b' } }, spec: { size: 1 } },
    );
    expect(entries(created.body)).toMatchObject([
      { manager: 'maker', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { '.': {}, 'f:color': {}, 'f:size': {} } } },
    ]);
    const put = await api.call('PUT', path('e'), { ...created.body, spec: { size: 2 } }, { 'User-Agent': 'kubectl-edit/v1.30.0 (linux/amd64)' });
    expect(Object.fromEntries(entries(put.body).map((entry) => [entry.manager, entry.fieldsV1]))).toEqual({
      maker: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { '.': {}, 'f:color': {} } },
      'kubectl-edit': { 'f:spec': { 'f:size': {} } },
    });
    const status = await api.call('PUT', path('e', '/status'), { ...put.body, status: { phase: 'Up' } }, { 'User-Agent': 'ctrl' });
    expect(entries(status.body).find((entry) => entry.manager === 'ctrl')).toMatchObject({
      subresource: 'status',
      fieldsV1: { 'f:status': { '.': {}, 'f:phase': {} } },
    });
    const reset = await api.call('PATCH', path('e'), { metadata: { managedFields: [] }, spec: { size: 3 } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(metadata(reset.body)['managedFields']).toBeUndefined();
  });

  it('validates fieldManager and force with the PatchOptions/CreateOptions texts', async () => {
    const missing = await api.call('PATCH', path('f'), config('f', {}), apply);
    expect(missing.status).toBe(422);
    expect(missing.body['message']).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const forced = await api.call('PATCH', path('f', '?force=true'), {}, { 'Content-Type': 'application/merge-patch+json' });
    expect(forced.body['message']).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const control = await api.call('POST', `${widgetsPath()}?fieldManager=a%01b`, { metadata: { name: 'x' } });
    expect(control.body['message']).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\u0001b": invalid character U+0001 (at position 1)');
  });

  it('rejects bad configurations with the upstream codes and texts', async () => {
    const withFields = await api.call('PATCH', path('g', '?fieldManager=a'), JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'g', managedFields: [] } }), apply);
    expect([withFields.status, withFields.body['message']]).toEqual([400, 'metadata.managedFields must be nil']);
    const wrongKind = await api.call('PATCH', path('g', '?fieldManager=a'), '{}', apply);
    expect([wrongKind.status, wrongKind.body['message']]).toEqual([400, 'invalid object type: /, Kind=']);
    const unknown = await api.call('PATCH', path('g', '?fieldManager=a'), config('g', { foo: 1 }), apply);
    // Upstream's text, with 400 BadRequest where upstream answers 500 (which clients retry).
    expect([unknown.status, unknown.body['reason'], unknown.body['message']]).toEqual([
      400,
      'BadRequest',
      'failed to create typed patch object (default/g; example.com/v1, Kind=Widget): .spec.foo: field not declared in schema',
    ]);
    const noName = await api.call('PATCH', path('g', '?fieldManager=a'), JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget' }), apply);
    expect([noName.status, noName.body['message']]).toEqual([400, 'the name of the object () does not match the name on the URL (g)']);
    const uid = await api.call('PATCH', path('g', '?fieldManager=a'), JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'g', uid: 'x' } }), apply);
    expect([uid.status, uid.body['message']]).toEqual([
      409,
      'Operation cannot be fulfilled on widgets.example.com "g": uid mismatch: the provided object specified uid x, and no existing object was found',
    ]);
    const badYaml = await api.call('PATCH', path('g', '?fieldManager=a'), 'a: [', apply);
    expect(badYaml.status).toBe(400);
    expect(String(badYaml.body['message'])).toMatch(/^error encoding patch: /);
    expect((await api.call('GET', path('g'))).status).toBe(404);
  });

  it('parses YAML 1.1 and checks duplicate keys only with fieldValidation Strict or Warn', async () => {
    const yaml = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: dup\nspec:\n  color: red\n  color: green\n';
    const strict = await api.call('PATCH', path('dup', '?fieldManager=a&fieldValidation=Strict'), yaml, apply);
    expect([strict.status, strict.body['message']]).toEqual([
      400,
      'error strict decoding patch: yaml: unmarshal errors:\n  line 7: key "color" already set in map',
    ]);
    const warned = await api.call('PATCH', path('dup', '?fieldManager=a'), yaml, apply);
    expect(warned.body['message']).toBeUndefined();
    expect(warned.status).toBe(201);
    expect(warned.body['spec']).toMatchObject({ color: 'green' });
    expect(warned.headers.get('warning')).toBe('299 - "line 7: key \\"color\\" already set in map"');
    // YAML 1.1 as sigs.k8s.io/yaml: `y` is a boolean, so this name does not match the URL.
    const boolean = await api.call('PATCH', path('y', '?fieldManager=a'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: y\n', apply);
    expect(boolean.body['message']).toBe('the name of the object (true) does not match the name on the URL (y)');
  });

  it('compares each manager in the version it wrote in', async () => {
    const beta = JSON.stringify({ apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'v' }, spec: { sizeText: '2' } });
    await api.call('PATCH', `${widgetsPath('default', 'v1beta1')}/v?fieldManager=alice`, beta, apply);
    const conflict = await api.call('PATCH', path('v', '?fieldManager=bob'), config('v', { size: 5 }), apply);
    expect(conflict.status).toBe(409);
    expect(conflict.body['message']).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.sizeText');
    const updated = await api.call('PATCH', path('v', '?fieldManager=carol'), { spec: { size: 7 } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(entries(updated.body).find((entry) => entry.manager === 'alice')?.fieldsV1).toBeUndefined();
    expect(entries(updated.body).find((entry) => entry.manager === 'carol')).toMatchObject({
      operation: 'Update',
      apiVersion: 'example.com/v1',
      fieldsV1: { 'f:spec': { 'f:size': {} } },
    });
  });

  it('needs create permission when the apply creates', async () => {
    const guarded = await startTestServer({
      authorizer: {
        authorize: (attributes) =>
          attributes.verb === 'create' ? { decision: 'deny', reason: 'no creates' } : { decision: 'allow' },
      },
    });
    try {
      const denied = await guarded.call('PATCH', path('n', '?fieldManager=a'), config('n', { size: 1 }), apply);
      expect(denied.status).toBe(403);
      expect(denied.body['reason']).toBe('Forbidden');
      expect(String(denied.body['message'])).toContain('cannot create resource "widgets"');
      expect((await guarded.call('GET', path('n'))).status).toBe(404);
    } finally {
      await guarded.server.shutdown();
    }
  });

  it('creates nothing on dryRun=All', async () => {
    const dry = await unchanged(() => api.call('PATCH', path('h', '?fieldManager=a&dryRun=All'), config('h', { size: 1 }), apply));
    expect(dry.status).toBe(201);
    expect(entries(dry.body)[0]?.manager).toBe('a');
    expect((await api.call('GET', path('h'))).status).toBe(404);
  });
});
