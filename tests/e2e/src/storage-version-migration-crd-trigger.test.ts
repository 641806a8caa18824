import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition, KubeObject } from '@kapi/apimachinery';
import { sleep, type RestClient } from '@kapi/client';
import { customResourceDefinition } from './crd-fixtures.js';
import { kubectl, startServer, type TestServer } from './harness.js';

/**
 * The built-in migrator's trigger on a group with dots in its name (every CRD's and most built-in
 * groups'): a storage-version change of `gadgets.trigger.example.com` starts a migration by itself. Its
 * StorageVersion is named `trigger.example.com.gadgets`, which splits at the last dot.
 */
const group = 'trigger.example.com';
const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`;

interface Migration extends KubeObject {
  spec: { resource: { group?: string; resource: string } };
  status?: { conditions?: Condition[] };
}

let server: TestServer;
let admin: RestClient;

beforeAll(async () => {
  server = await startServer();
  admin = server.client();
  await kubectl(server, ['create', '-f', '-'], JSON.stringify(customResourceDefinition({ group, kind: 'Gadget', versions: ['v1', 'v2'] })));
  for (let index = 0; index < 5; index++) {
    const body = { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: `g-${index}` }, spec: { size: index } };
    // 404 until the resource is served, 503 while its StorageVersion registers.
    for (let attempt = 0; ; attempt++) {
      const answer = await admin.raw({ method: 'POST', path: `/apis/${group}/v1/namespaces/default/gadgets`, body });
      if (answer.statusCode === 201) break;
      if (attempt > 150) throw new Error(`gadget not created: ${answer.body.toString()}`);
      await sleep(100);
    }
  }
});

afterAll(async () => {
  await server?.stop();
});

describe('the built-in migration trigger on a group with dots', () => {
  it('migrates a CRD\'s objects when its storage version changes, and storedVersions follows', async () => {
    const current = await admin.request<KubeObject & { spec: { versions: Array<{ name: string; storage: boolean }> } }>({ method: 'GET', path: crdPath });
    const versions = current.spec.versions.map((version) => ({ ...version, storage: version.name === 'v2' }));
    await admin.request({ method: 'PUT', path: crdPath, body: { ...current, spec: { ...current.spec, versions } } });
    let succeeded: Migration | undefined;
    for (let attempt = 0; attempt < 300 && !succeeded; attempt++) {
      const list = await admin.request<{ items: Migration[] }>({ method: 'GET', path: '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations' });
      succeeded = list.items.find(
        (item) =>
          item.spec.resource.resource === 'gadgets' &&
          item.spec.resource.group === group &&
          item.status?.conditions?.some((condition) => condition.type === 'Succeeded' && condition.status === 'True'),
      );
      if (!succeeded) await sleep(200);
    }
    expect(succeeded?.spec.resource).toEqual({ group, resource: 'gadgets' });
    let storedVersions: string[] | undefined;
    for (let attempt = 0; attempt < 100; attempt++) {
      storedVersions = (await admin.request<{ status?: { storedVersions?: string[] } }>({ method: 'GET', path: crdPath })).status?.storedVersions;
      if (storedVersions?.length === 1) break;
      await sleep(200);
    }
    expect(storedVersions).toEqual(['v2']);
  });
});
