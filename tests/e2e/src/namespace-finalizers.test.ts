import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient, RestRequest } from '@kapi/client';
import { kubectl, startServer, type TestServer } from './harness.js';

/**
 * Namespaces as upstream keeps them: the `kubernetes` finalizer in `spec.finalizers` (not in metadata),
 * changed only through `/finalize`; a deleted namespace waits for every finalizer there.
 */
let server: TestServer;
let admin: RestClient;

interface Namespace {
  apiVersion: string;
  kind: string;
  metadata: { name: string; finalizers?: string[]; deletionTimestamp?: string; resourceVersion?: string };
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

const nsPath = '/api/v1/namespaces';

beforeAll(async () => {
  server = await startServer();
  admin = server.client();
});

afterAll(async () => {
  await server?.stop();
});

async function send(method: RestRequest['method'], path: string, body?: unknown): Promise<{ code: number; body: Record<string, unknown> }> {
  const response = await admin.raw({ method, path, ...(body === undefined ? {} : { body }) });
  return { code: response.statusCode, body: JSON.parse(response.body.toString() || '{}') as Record<string, unknown> };
}

const getNamespace = (name: string) => admin.request<Namespace>({ method: 'GET', path: `${nsPath}/${name}` });
const namespace = (name: string, finalizers?: string[]) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name },
  ...(finalizers ? { spec: { finalizers } } : {}),
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

const gone = (name: string) => getNamespace(name).then(() => false, () => true);

describe('namespace finalizers', () => {
  it('spec.finalizers gets kubernetes on create, metadata.finalizers stays empty, /finalize is in discovery', async () => {
    await admin.request({ method: 'POST', path: nsPath, body: namespace('plain') });
    const plain = await getNamespace('plain');
    expect(plain.spec?.finalizers).toEqual(['kubernetes']);
    expect(plain.metadata.finalizers).toBeUndefined();
    await admin.request({ method: 'POST', path: nsPath, body: namespace('custom', ['example.com/x']) });
    expect((await getNamespace('custom')).spec?.finalizers).toEqual(['example.com/x', 'kubernetes']);

    const discovery = await admin.request<{ resources: Array<{ name: string; verbs: string[] }> }>({ method: 'GET', path: '/api/v1' });
    expect(discovery.resources.find((resource) => resource.name === 'namespaces/finalize')?.verbs).toEqual(['update']);
    expect((await send('GET', `${nsPath}/plain/finalize`)).code).toBe(405);
  });

  it('spec.finalizers are validated, and an update of the namespace itself cannot change them', async () => {
    const invalid = await send('POST', nsPath, namespace('bad-finalizer', ['bad name!']));
    expect(invalid.code).toBe(422);
    expect(JSON.stringify(invalid.body)).toContain('spec.finalizers[0]');
    const unqualified = await send('POST', nsPath, namespace('bad-finalizer', ['custom']));
    expect(unqualified.code).toBe(422);
    expect(JSON.stringify(unqualified.body)).toContain('name is neither a standard finalizer name nor is it fully qualified');
    expect(await gone('bad-finalizer')).toBe(true);

    const current = await getNamespace('plain');
    const updated = await admin.request<Namespace>({ method: 'PUT', path: `${nsPath}/plain`, body: { ...current, spec: { finalizers: [] } } });
    expect(updated.spec?.finalizers).toEqual(['kubernetes']);
  });

  it('a status update may not make a live namespace Terminating', async () => {
    const current = await getNamespace('plain');
    const result = await send('PUT', `${nsPath}/plain/status`, { ...current, status: { phase: 'Terminating' } });
    expect(result.code).toBe(422);
    expect(JSON.stringify(result.body)).toContain("may only be 'Active' if `deletionTimestamp` is empty");
    expect((await getNamespace('plain')).status?.phase).toBe('Active');
    await admin.request({ method: 'POST', path: '/api/v1/namespaces/plain/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'still-allowed' } } });
  });

  it('a deleted namespace is Terminating at once, emptied, and kept until /finalize clears its own finalizer', async () => {
    await admin.request({ method: 'POST', path: '/api/v1/namespaces/custom/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'content' } } });
    const deleted = await admin.request<Namespace>({ method: 'DELETE', path: `${nsPath}/custom` });
    expect(deleted.status?.phase).toBe('Terminating');
    expect(deleted.metadata.deletionTimestamp).toBeDefined();
    // The controller empties it and removes `kubernetes`; example.com/x keeps it.
    const held = await until(() => getNamespace('custom'), (ns) => !(ns.spec?.finalizers ?? []).includes('kubernetes'));
    expect(held.spec?.finalizers).toEqual(['example.com/x']);
    expect(held.status?.phase).toBe('Terminating');
    const content = await admin.request<{ items: unknown[] }>({ method: 'GET', path: '/api/v1/namespaces/custom/configmaps' });
    expect(content.items).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await gone('custom')).toBe(false);

    // What an operator does for a stuck namespace: replace --raw on /finalize.
    await kubectl(server, ['replace', '--raw', '/api/v1/namespaces/custom/finalize', '-f', '-'], JSON.stringify({ ...held, spec: { finalizers: [] } }));
    expect(await until(() => gone('custom'), (done) => done)).toBe(true);
  });

  it('removing metadata.finalizers does not let a namespace go before its content', async () => {
    await admin.request({ method: 'POST', path: nsPath, body: namespace('keep-content') });
    await admin.request({
      method: 'POST',
      path: '/api/v1/namespaces/keep-content/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    await admin.request({ method: 'PATCH', path: `${nsPath}/keep-content`, body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    await admin.request({ method: 'DELETE', path: `${nsPath}/keep-content` });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await gone('keep-content')).toBe(false);
    const held = await admin.request<{ metadata: { deletionTimestamp?: string } }>({ method: 'GET', path: '/api/v1/namespaces/keep-content/configmaps/held' });
    expect(held.metadata.deletionTimestamp).toBeDefined();
    await admin.request({ method: 'PATCH', path: '/api/v1/namespaces/keep-content/configmaps/held', body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    expect(await until(() => gone('keep-content'), (done) => done)).toBe(true);
  });
});
