import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition, KubeObject } from '@kapi/apimachinery';
import { sleep, type RestClient } from '@kapi/client';
import { customResourceDefinition } from './crd-fixtures.js';
import { kubectl, startServer, type TestServer } from './harness.js';
import { startMigrator, type StandaloneMigrator } from './standalone-migrator.js';

const group = 'migration.example.com';
const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`;
const widgetCount = 30;

interface CustomResourceDefinition extends KubeObject {
  spec: { versions: Array<{ name: string; storage: boolean; additionalPrinterColumns?: unknown[] }> };
  status?: { storedVersions?: string[]; conditions?: Condition[] };
}

let server: TestServer;
let admin: RestClient;
let migrator: StandaloneMigrator;

const crd = customResourceDefinition({ group, kind: 'Widget', versions: ['v1', 'v2'] });

const migration = (name: string) =>
  JSON.stringify({ apiVersion: 'storagemigration.k8s.io/v1beta1', kind: 'StorageVersionMigration', metadata: { name }, spec: { resource: { group, resource: 'widgets' } } });

/** The apiVersion each widget is stored in, read from the SQLite file. */
function storedApiVersions(): Map<string, string> {
  const database = new Database(join(server.dataDir, 'kapi.db'), { readonly: true });
  try {
    const versions = new Map<string, string>();
    const latest = database.prepare('SELECT value FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1');
    for (let index = 0; index < widgetCount; index++) {
      const row = latest.get(Buffer.from(`/registry/${group}/widgets/default/w-${index}`)) as { value: Buffer } | undefined;
      versions.set(`w-${index}`, row ? (JSON.parse(row.value.toString()) as KubeObject).apiVersion ?? '' : 'missing');
    }
    return versions;
  } finally {
    database.close();
  }
}

/** Makes `storage` the CRD's storage version (a spec change: the generation moves). */
async function setStorageVersion(storage: string): Promise<CustomResourceDefinition> {
  const current = await admin.request<CustomResourceDefinition>({ method: 'GET', path: crdPath });
  const versions = current.spec.versions.map((version) => ({ ...version, storage: version.name === storage }));
  return admin.request<CustomResourceDefinition>({ method: 'PUT', path: crdPath, body: { ...current, spec: { ...current.spec, versions } } });
}

beforeAll(async () => {
  server = await startServer({ args: ['--storage-version-migrator=false'] });
  admin = server.client();
  await kubectl(server, ['create', '-f', '-'], JSON.stringify(crd));
  for (let attempt = 0; ; attempt++) {
    const answer = await admin.raw({ method: 'GET', path: `/apis/${group}/v1/namespaces/default/widgets` });
    if (answer.statusCode === 200) break;
    if (attempt > 100) throw new Error(`widgets are not served: ${answer.body.toString()}`);
    await sleep(100);
  }
  for (let index = 0; index < widgetCount; index++) {
    const body = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `w-${index}` }, spec: { size: index } };
    // (503 while the new resource's StorageVersion registers: the write barrier, as upstream.)
    for (let attempt = 0; ; attempt++) {
      const answer = await admin.raw({ method: 'POST', path: `/apis/${group}/v1/namespaces/default/widgets`, body });
      if (answer.statusCode === 201) break;
      if (answer.statusCode !== 503 || attempt > 100) throw new Error(`widget not created: ${answer.body.toString()}`);
      await sleep(100);
    }
  }
  // The standalone migrator with the admin's kubeconfig, throttled (5 writes/s) so a test can change the CRD mid-way.
  migrator = await startMigrator([`--kubeconfig=${server.kubeconfig}`, '--qps=5', '--burst=1', '--trigger=false', '--leader-elect=false']);
});

afterAll(async () => {
  await migrator?.kill();
  await server?.stop();
});

describe('migrating custom resources prunes the CRD status.storedVersions', () => {
  it('rewrites every widget in the new storage version, then storedVersions becomes [v2]', async () => {
    expect(new Set(storedApiVersions().values())).toEqual(new Set([`${group}/v1`]));
    const changed = await setStorageVersion('v2');
    expect(changed.status?.storedVersions).toEqual(['v1', 'v2']);

    await kubectl(server, ['create', '-f', '-'], migration('widgets-to-v2'));
    await kubectl(server, ['wait', '--for=condition=Succeeded', 'storageversionmigration/widgets-to-v2', '--timeout=60s']);

    expect(new Set(storedApiVersions().values())).toEqual(new Set([`${group}/v2`]));
    const migrated = await admin.request<CustomResourceDefinition>({ method: 'GET', path: crdPath });
    expect(migrated.status?.storedVersions).toEqual(['v2']);
    const condition = migrated.status?.conditions?.find((candidate) => candidate.type === 'StorageMigrating');
    expect(condition).toMatchObject({ status: 'False', reason: 'MigrationSucceeded', observedGeneration: migrated.metadata.generation });
    expect(await kubectl(server, ['get', 'crd', `widgets.${group}`, '-o', 'jsonpath={.status.storedVersions}'])).toBe('["v2"]');
    // v1 can now leave spec.versions: no object is stored in it any more.
    const withoutV1 = { ...migrated, spec: { ...migrated.spec, versions: migrated.spec.versions.filter((version) => version.name !== 'v1') } };
    const answer = await admin.raw({ method: 'PUT', path: crdPath, body: withoutV1 });
    expect(answer.statusCode).toBe(200);
  });

  it('keeps storedVersions when the CRD changes while its resources migrate', async () => {
    const current = await admin.request<CustomResourceDefinition>({ method: 'GET', path: crdPath });
    const versions = [...current.spec.versions, { ...current.spec.versions[0], name: 'v1', storage: false }];
    await admin.request({ method: 'PUT', path: crdPath, body: { ...current, spec: { ...current.spec, versions } } });
    await setStorageVersion('v1');
    expect((await admin.request<CustomResourceDefinition>({ method: 'GET', path: crdPath })).status?.storedVersions).toEqual(['v2', 'v1']);

    await kubectl(server, ['create', '-f', '-'], migration('widgets-back-to-v1'));
    // Once the migration has marked the CRD (at 5 writes/s it runs for seconds), its spec changes.
    for (const deadline = Date.now() + 30_000; ; await sleep(50)) {
      const marked = await admin.request<CustomResourceDefinition>({ method: 'GET', path: crdPath });
      if (marked.status?.conditions?.some((candidate) => candidate.type === 'StorageMigrating' && candidate.status === 'True')) break;
      if (Date.now() > deadline) throw new Error('the migration did not mark the CRD StorageMigrating');
    }
    const marked = await admin.request<CustomResourceDefinition>({ method: 'GET', path: crdPath });
    const withColumn = marked.spec.versions.map((version) => ({ ...version, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] }));
    const edited = await admin.request<CustomResourceDefinition>({ method: 'PUT', path: crdPath, body: { ...marked, spec: { ...marked.spec, versions: withColumn } } });
    expect(edited.metadata.generation).toBeGreaterThan(marked.metadata.generation ?? 0);

    await kubectl(server, ['wait', '--for=condition=Succeeded', 'storageversionmigration/widgets-back-to-v1', '--timeout=60s']);
    const after = await admin.request<CustomResourceDefinition>({ method: 'GET', path: crdPath });
    expect(after.status?.storedVersions).toEqual(['v2', 'v1']);
    const condition = after.status?.conditions?.find((candidate) => candidate.type === 'StorageMigrating');
    expect(condition).toMatchObject({ status: 'False', reason: 'MigrationSucceeded', observedGeneration: marked.metadata.generation });
    expect(condition?.message).toContain('the CRD changed meanwhile; storedVersions is kept');
  });
});
