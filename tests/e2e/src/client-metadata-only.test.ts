import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceClient, type RestClient } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';

// @kapi/client's metadata-only list and watch (what the in-process garbage collector's informers use).
let server: TestServer;
let rest: RestClient;

beforeAll(async () => {
  server = await startServer({ args: ['--enable-garbage-collector=false'] });
  rest = server.client();
});

afterAll(async () => {
  rest?.close();
  await server?.stop();
});

describe('ResourceClient metadataOnly', () => {
  const ref = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

  it('lists and watches PartialObjectMetadata without the objects\' data', async () => {
    const full = new ResourceClient(rest, ref);
    const metadata = new ResourceClient(rest, ref, { metadataOnly: true });
    await full.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'meta-a', labels: { app: 'x' } }, data: { big: 'y'.repeat(1000) } });
    const list = await metadata.list('default', { labelSelector: 'app=x' });
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'meta-a', labels: { app: 'x' } } });
    expect(list.items[0]).not.toHaveProperty('data');
    // The full client still gets the object.
    expect((await full.list('default', { labelSelector: 'app=x' })).items[0]).toHaveProperty('data.big');

    const abort = new AbortController();
    const watch = await metadata.watch('default', { resourceVersion: list.metadata.resourceVersion ?? '', labelSelector: 'app=x' }, abort.signal);
    await full.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'meta-b', labels: { app: 'x' } }, data: { big: 'z' } });
    for await (const event of watch) {
      expect(event.type).toBe('ADDED');
      expect(event.object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'meta-b' } });
      expect(event.object).not.toHaveProperty('data');
      break;
    }
    abort.abort();
  });
});
