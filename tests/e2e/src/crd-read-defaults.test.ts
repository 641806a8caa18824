import type { RestClient } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customResourceDefinition } from './crd-fixtures.js';
import { kubectl, startServer, type TestServer } from './harness.js';

const group = 'reads.example.com';
const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`;

interface Widget {
  metadata: { name: string; resourceVersion: string };
  spec: Record<string, unknown>;
}

const widgetsCrd = (spec: Record<string, unknown>) => customResourceDefinition({ group, kind: 'Widget', spec });

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Upstream decodes custom resources from storage with the current schema: a default added to the CRD
 * later shows on objects stored before it, and a field the schema no longer declares is pruned on read.
 */
describe('custom resources read from storage with the current schema', () => {
  let server: TestServer;
  let client: RestClient;

  beforeAll(async () => {
    server = await startServer();
    client = server.client();
    const spec = { type: 'object', properties: { size: { type: 'integer' }, legacy: { type: 'string' } } };
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(widgetsCrd(spec)));
    await kubectl(server, ['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=30s']);
    const widget = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'old' }, spec: { legacy: 'kept until the schema drops it' } };
    await kubectl(server, ['create', '-f', '-'], JSON.stringify(widget));
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('defaults and prunes on read, in GET and LIST (watch cache and storage), without a write', async () => {
    const before = await client.request<Widget>({ method: 'GET', path: `${widgets}/old` });
    expect(before.spec).toEqual({ legacy: 'kept until the schema drops it' });

    const crd = await client.request<Record<string, unknown>>({ method: 'GET', path: crdPath });
    const spec = { type: 'object', properties: { size: { type: 'integer', default: 3 } } };
    const updated = widgetsCrd(spec);
    await client.request({ method: 'PUT', path: crdPath, body: { ...updated, metadata: crd['metadata'] } });

    const got = await eventually(
      () => client.request<Widget>({ method: 'GET', path: `${widgets}/old` }),
      (widget) => widget.spec['size'] === 3,
    );
    expect(got.spec).toEqual({ size: 3 });
    // Nothing was written: the object keeps its resourceVersion.
    expect(got.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    const list = await client.request<{ items: Widget[] }>({ method: 'GET', path: `${widgets}?resourceVersion=0` });
    expect(list.items.map((item) => item.spec)).toEqual([{ size: 3 }]);
    const fromStorage = await client.request<{ items: Widget[] }>({ method: 'GET', path: widgets });
    expect(fromStorage.items.map((item) => item.spec)).toEqual([{ size: 3 }]);
    expect(await kubectl(server, ['get', `widgets.${group}`, 'old', '-o', 'jsonpath={.spec}'])).toBe('{"size":3}');
  });
});

/**
 * An object is read with the defaults of the version it was stored at, then converted, and what the
 * requested version does not declare is pruned (upstream's storage decoder and schema-coercing converter).
 */
describe('custom resources stored at an older version', () => {
  let server: TestServer;
  let client: RestClient;
  const multi = 'multi.example.com';
  const gadgets = (version: string) => `/apis/${multi}/${version}/namespaces/default/gadgets`;
  const gadgetsCrd = (storage: string) =>
    customResourceDefinition({
      group: multi,
      kind: 'Gadget',
      versions: ['v1alpha1', 'v1'],
      storage,
      specs: {
        v1alpha1: { type: 'object', properties: { a: { type: 'string' } } },
        v1: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', default: 'fromV1' } } },
      },
    });

  beforeAll(async () => {
    // Without the migrator, which would rewrite the old object at the new storage version (and its defaults).
    server = await startServer({ args: ['--storage-version-migrator=false'] });
    client = server.client();
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(gadgetsCrd('v1alpha1')));
    await kubectl(server, ['wait', '--for=condition=Established', `crd/gadgets.${multi}`, '--timeout=30s']);
    await eventually(async () => (await client.raw({ method: 'GET', path: gadgets('v1alpha1') })).statusCode, (code) => code === 200);
    await client.request({ method: 'POST', path: gadgets('v1alpha1'), body: { apiVersion: `${multi}/v1alpha1`, kind: 'Gadget', metadata: { name: 'old' }, spec: { a: 'x' } } });
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${multi}`;
    const crd = await client.request<Record<string, unknown>>({ method: 'GET', path });
    await client.request({ method: 'PUT', path, body: { ...gadgetsCrd('v1'), metadata: crd['metadata'] } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps the stored version\'s defaults and prunes to the version read', async () => {
    // A new object at v1 gets v1's default; the old one, stored at v1alpha1, does not, read at either version.
    await eventually(
      async () => (await client.raw({ method: 'POST', path: gadgets('v1'), body: { apiVersion: `${multi}/v1`, kind: 'Gadget', metadata: { name: 'new' }, spec: { a: 'y' } } })).statusCode,
      (code) => code === 201 || code === 409,
    );
    const fresh = await client.request<Widget>({ method: 'GET', path: `${gadgets('v1')}/new` });
    expect(fresh.spec).toEqual({ a: 'y', b: 'fromV1' });
    for (const version of ['v1', 'v1alpha1']) {
      const old = await client.request<Widget>({ method: 'GET', path: `${gadgets(version)}/old` });
      expect([version, old.spec]).toEqual([version, { a: 'x' }]);
    }
    // The new object read at v1alpha1 loses the field v1alpha1 does not declare.
    expect((await client.request<Widget>({ method: 'GET', path: `${gadgets('v1alpha1')}/new` })).spec).toEqual({ a: 'y' });
  });
});
