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
