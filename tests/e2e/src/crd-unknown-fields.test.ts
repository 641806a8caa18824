import type { RestClient } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customResourceDefinition, until } from './crd-fixtures.js';
import { kubectl, startServer, type TestServer } from './harness.js';

const group = 'unknown.example.com';
const widgets = `/apis/${group}/v1/namespaces/default/widgets`;

const crd = customResourceDefinition({
  group,
  kind: 'Widget',
  spec: {
    type: 'object',
    properties: {
      size: { type: 'integer', default: 1 },
      items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      free: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { inner: { type: 'object', properties: { a: { type: 'string' } } } },
      },
    },
  },
});

/**
 * Unknown fields at three depths, one under preserve-unknown-fields that is kept, and two in metadata,
 * which holds the fields of ObjectMeta whatever the schema says.
 */
const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '00000000-0000-0000-0000-000000000001' };
const widget = (name: string) => ({
  apiVersion: `${group}/v1`,
  kind: 'Widget',
  metadata: { name, foo: 1, ownerReferences: [{ ...owner, extra: true }] },
  spec: {
    bogus: true,
    items: [{ name: 'a', extra: 1 }],
    free: { anything: 'kept', inner: { a: 'x', zzz: 'pruned' } },
  },
});
const unknownPaths = ['metadata.foo', 'metadata.ownerReferences[0].extra', 'spec.bogus', 'spec.items[0].extra', 'spec.free.inner.zzz'];

/**
 * fieldValidation on custom resources (the unknown fields are found without changing the request's
 * object, then pruned unless the request is refused), as upstream: Strict refuses naming every unknown
 * field, Warn stores the pruned object with one warning per field, Ignore stores it silently.
 */
describe('unknown fields of custom resources', () => {
  let server: TestServer;
  let client: RestClient;

  beforeAll(async () => {
    // The objects name an owner that does not exist: the garbage collector would delete them.
    server = await startServer({ args: ['--enable-garbage-collector=false'] });
    client = server.client();
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(crd));
    await kubectl(server, ['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=30s']);
    await until('widgets served', async () => (await client.raw({ method: 'GET', path: widgets })).statusCode, (code) => code === 200);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('Strict -> 400 naming each unknown field, nothing stored', async () => {
    const answer = await client.raw({ method: 'POST', path: widgets, query: { fieldValidation: 'Strict' }, body: widget('strict') });
    expect(answer.statusCode).toBe(400);
    const status = JSON.parse(answer.body.toString('utf8')) as { reason: string; message: string };
    expect(status.reason).toBe('BadRequest');
    expect(status.message).toMatch(/^Widget in version "v1" cannot be handled as a Widget: strict decoding error: /);
    for (const path of unknownPaths) expect(status.message).toContain(`unknown field "${path}"`);
    expect(status.message).not.toContain('anything');
    expect((await client.raw({ method: 'GET', path: `${widgets}/strict` })).statusCode).toBe(404);
  });

  it('Warn -> stored pruned and defaulted, one warning per unknown field', async () => {
    const answer = await client.raw({ method: 'POST', path: widgets, query: { fieldValidation: 'Warn' }, body: widget('warn') });
    expect(answer.statusCode).toBe(201);
    const warnings = String(answer.headers['warning'] ?? '');
    for (const path of unknownPaths) expect(warnings).toContain(`unknown field \\"${path}\\"`);
    const expected = { size: 1, items: [{ name: 'a' }], free: { anything: 'kept', inner: { a: 'x' } } };
    expect((JSON.parse(answer.body.toString('utf8')) as { spec: unknown }).spec).toEqual(expected);
    const stored = await client.request<{ spec: unknown; metadata: Record<string, unknown> }>({ method: 'GET', path: `${widgets}/warn` });
    expect(stored.spec).toEqual(expected);
    expect(stored.metadata['foo']).toBeUndefined();
    expect(stored.metadata['ownerReferences']).toEqual([owner]);
  });

  it('a strategic merge patch of a custom resource -> 415 (upstream serves none), object unchanged', async () => {
    await client.raw({ method: 'POST', path: widgets, body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'smp' }, spec: { size: 2 } } });
    const answer = await client.raw({ method: 'PATCH', path: `${widgets}/smp`, body: { spec: { size: 3 } }, contentType: 'application/strategic-merge-patch+json' });
    expect(answer.statusCode).toBe(415);
    expect((JSON.parse(answer.body.toString('utf8')) as { message: string }).message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    expect((await client.request<{ spec: { size: number } }>({ method: 'GET', path: `${widgets}/smp` })).spec.size).toBe(2);
  });

  it('Ignore -> stored pruned, no warning', async () => {
    const answer = await client.raw({ method: 'POST', path: widgets, query: { fieldValidation: 'Ignore' }, body: widget('ignore') });
    expect(answer.statusCode).toBe(201);
    expect(answer.headers['warning']).toBeUndefined();
    const stored = await client.request<{ spec: Record<string, unknown>; metadata: Record<string, unknown> }>({ method: 'GET', path: `${widgets}/ignore` });
    expect(stored.spec).toEqual({ size: 1, items: [{ name: 'a' }], free: { anything: 'kept', inner: { a: 'x' } } });
    expect(stored.metadata['foo']).toBeUndefined();
    expect(stored.metadata['ownerReferences']).toEqual([owner]);
  });
});
