import { describe, expect, it } from 'vitest';
import { serverForFile } from './server-for-file.js';

/**
 * Write and watch details a client sees, as upstream's generic store and watch encoder give them: a
 * paged deletecollection, no create through a subresource, the body of a DELETE, and watch events as
 * PartialObjectMetadata or Table.
 */
const shared = serverForFile();
const configmaps = (namespace: string) => `/api/v1/namespaces/${namespace}/configmaps`;
const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1' } });

async function createNamespace(name: string): Promise<void> {
  await shared.admin.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
}

/** The JSON lines of a watch that ends by its timeout. */
async function watchLines(path: string, accept: string, during: () => Promise<void>): Promise<Array<{ type: string; object: Record<string, unknown> }>> {
  const started = shared.admin.raw({ method: 'GET', path, accept });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await during();
  const response = await started;
  expect(response.statusCode).toBe(200);
  return response.body
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; object: Record<string, unknown> });
}

describe('writes as upstream\'s generic store makes them', () => {
  it('deletecollection with a limit deletes one page and answers its continue token', async () => {
    await createNamespace('paged-delete');
    for (const name of ['d1', 'd2', 'd3', 'd4', 'd5']) await shared.admin.request({ method: 'POST', path: configmaps('paged-delete'), body: cm(name) });
    const page = await shared.admin.request<{ items: Array<{ metadata: { name: string } }>; metadata: { continue?: string } }>({
      method: 'DELETE',
      path: `${configmaps('paged-delete')}?limit=2`,
    });
    expect(page.items.map((item) => item.metadata.name)).toEqual(['d1', 'd2']);
    expect(page.metadata.continue).toBeTruthy();
    const left = await shared.admin.request<{ items: Array<{ metadata: { name: string } }> }>({ method: 'GET', path: configmaps('paged-delete') });
    expect(left.items.map((item) => item.metadata.name)).toEqual(['d3', 'd4', 'd5']);
  });

  it('a server-side apply to /status of a missing object is 404 and creates nothing', async () => {
    const services = '/api/v1/namespaces/default/services';
    const applied = await shared.admin.raw({
      method: 'PATCH',
      path: `${services}/nosuch/status?fieldManager=status-writer`,
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nosuch' }, spec: { ports: [{ port: 80 }] }, status: {} },
      contentType: 'application/apply-patch+yaml',
    });
    expect(applied.statusCode).toBe(404);
    expect((await shared.admin.raw({ method: 'GET', path: `${services}/nosuch` })).statusCode).toBe(404);
  });

  it('a DELETE answers with a Status, or with the object where upstream\'s store returns it (services)', async () => {
    await shared.admin.request({ method: 'POST', path: configmaps('default'), body: cm('deleted-for-status') });
    const deleted = await shared.admin.request<{ kind: string; status?: string; details?: { name: string; kind: string } }>({ method: 'DELETE', path: `${configmaps('default')}/deleted-for-status` });
    expect(deleted).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'deleted-for-status', kind: 'configmaps' } });
    const services = '/api/v1/namespaces/default/services';
    await shared.admin.request({ method: 'POST', path: services, body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'deleted-service' }, spec: { ports: [{ port: 80 }] } } });
    const service = await shared.admin.request<{ kind: string }>({ method: 'DELETE', path: `${services}/deleted-service` });
    expect(service.kind).toBe('Service');
  });
});

describe('watch events in the form the client asked for', () => {
  it('as=PartialObjectMetadata is for one object, as=PartialObjectMetadataList for a list: the other way round is 406, as upstream', async () => {
    await createNamespace('metadata-forms');
    await shared.admin.request({ method: 'POST', path: configmaps('metadata-forms'), body: cm('one') });
    const form = (as: string) => `application/json;as=${as};g=meta.k8s.io;v=v1`;
    const get = (path: string, as: string) => shared.admin.raw({ method: 'GET', path, accept: form(as) });
    const item = `${configmaps('metadata-forms')}/one`;
    expect((await get(item, 'PartialObjectMetadata')).statusCode).toBe(200);
    expect((await get(configmaps('metadata-forms'), 'PartialObjectMetadataList')).statusCode).toBe(200);
    const one = await get(item, 'PartialObjectMetadataList');
    expect(one.statusCode).toBe(406);
    expect(JSON.parse(one.body.toString())).toMatchObject({ reason: 'NotAcceptable', message: 'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)' });
    const list = await get(configmaps('metadata-forms'), 'PartialObjectMetadata');
    expect(list.statusCode).toBe(406);
    expect(JSON.parse(list.body.toString())).toMatchObject({ message: 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)' });
  });

  it('as PartialObjectMetadata (client-go\'s metadata informers): metadata only, never the data', async () => {
    await createNamespace('metadata-watch');
    const lines = await watchLines(`${configmaps('metadata-watch')}?watch=1&timeoutSeconds=2`, 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json', async () => {
      await shared.admin.request({ method: 'POST', path: configmaps('metadata-watch'), body: cm('secretive') });
    });
    expect(lines.map((line) => line.type)).toEqual(['ADDED']);
    expect(lines[0]?.object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'secretive' } });
    expect(lines[0]?.object['data']).toBeUndefined();
  });

  it('as Table: column definitions with the first event only, each row\'s resourceVersion in its metadata', async () => {
    await createNamespace('table-watch');
    const lines = await watchLines(`${configmaps('table-watch')}?watch=1&timeoutSeconds=2`, 'application/json;as=Table;g=meta.k8s.io;v=v1', async () => {
      await shared.admin.request({ method: 'POST', path: configmaps('table-watch'), body: cm('first') });
      await shared.admin.request({ method: 'POST', path: configmaps('table-watch'), body: cm('second') });
    });
    expect(lines.map((line) => line.type)).toEqual(['ADDED', 'ADDED']);
    expect((lines[0]?.object['columnDefinitions'] as unknown[]).length).toBeGreaterThan(0);
    expect(lines[1]?.object['columnDefinitions']).toBeNull();
    for (const line of lines) expect((line.object['metadata'] as { resourceVersion?: string }).resourceVersion).toMatch(/^\d+$/);
    const got = await shared.admin.request<{ metadata: { resourceVersion?: string } }>({ method: 'GET', path: `${configmaps('table-watch')}/first`, accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    expect(got.metadata.resourceVersion).toMatch(/^\d+$/);
  });
});
