import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeList, KubeObject } from '@kapi/apimachinery';
import { RestClient, errorFromResponse } from '@kapi/client';
import { MigrationController, isSkipped, migrationWrite, type PageItem, type StorageVersionMigration } from '@kapi/migrator';
import { startEtcd, type EtcdInstance } from '@kapi/storage-etcd3/testing';
import { kubectl, startServer, type TestServer } from './harness.js';

const key1 = { name: 'key1', secret: randomBytes(32).toString('base64') };
const key2 = { name: 'key2', secret: randomBytes(32).toString('base64') };
const configuration = (keys: Array<{ name: string; secret: string }>) =>
  JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'EncryptionConfiguration',
    resources: [{ resources: ['secrets'], providers: [{ aesgcm: { keys } }, { identity: {} }] }],
  });

const secretCount = 1100;
const concurrentlyUpdated = 40;
const secretsPath = '/api/v1/namespaces/default/secrets';
const migrationsPath = '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations';

let directory: string;
let configPath: string;
let etcd: EtcdInstance;
let raw: Etcd3;
let server: TestServer;
let admin: RestClient;

const migration = (name: string, resource: string) =>
  JSON.stringify({
    apiVersion: 'storagemigration.k8s.io/v1beta1',
    kind: 'StorageVersionMigration',
    metadata: { name },
    spec: { resource: { group: '', resource } },
  });

async function rawSecretPrefixes(): Promise<Map<string, string>> {
  const values = await raw.getAll().prefix('/registry/secrets/default/').buffers();
  return new Map(Object.entries(values).map(([key, value]) => [key, value.subarray(0, 'k8s:enc:aesgcm:v1:key1:'.length).toString()]));
}

async function resourceVersions(): Promise<Map<string, string>> {
  const list = await admin.request<KubeList<KubeObject>>({ method: 'GET', path: secretsPath });
  return new Map(list.items.map((item) => [item.metadata.name ?? '', item.metadata.resourceVersion ?? '']));
}

async function inBatches(count: number, action: (index: number) => Promise<unknown>, concurrency = 32): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await action(next++);
    }),
  );
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'kapi-migration-'));
  configPath = join(directory, 'encryption.yaml');
  writeFileSync(configPath, configuration([key1]));
  writeFileSync(join(directory, 'tokens.csv'), 'limited-token,limited-migrator,2001,""\n');
  etcd = await startEtcd();
  raw = new Etcd3({ hosts: etcd.endpoint });
  server = await startServer({
    args: [
      '--storage=etcd',
      `--etcd-servers=${etcd.endpoint}`,
      `--encryption-provider-config=${configPath}`,
      '--encryption-provider-config-automatic-reload=true',
      `--token-auth-file=${join(directory, 'tokens.csv')}`,
      // The migrations here are run by the controllers this test starts.
      '--storage-version-migrator=false',
    ],
  });
  admin = server.client();
  await inBatches(secretCount, (index) =>
    admin.request({
      method: 'POST',
      path: secretsPath,
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${index}` }, stringData: { value: `secret ${index}` } },
    }),
  );
});

afterAll(async () => {
  await server?.stop();
  raw?.close();
  await etcd?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('storage version migration (StorageVersionMigration over HTTP, real etcd)', () => {
  it('re-encrypts every secret with the new key, keeps concurrent updates, and a second migration changes nothing', async () => {
    expect(new Set((await rawSecretPrefixes()).values())).toEqual(new Set(['k8s:enc:aesgcm:v1:key1:']));
    writeFileSync(configPath, configuration([key2, key1]));
    const deadline = Date.now() + 20_000;
    while (!server.output().includes('encryption at rest: reloaded providers')) {
      if (Date.now() > deadline) throw new Error('the encryption configuration was not reloaded');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const pages: number[] = [];
    const controller = new MigrationController({
      rest: server.client(),
      qps: 0,
      pageSize: 500,
      writesInFlight: 8,
      observer: { onPage: (_migration, progress) => pages.push(progress.migratedObjects + progress.skippedObjects) },
    });
    controller.start();
    try {
      await kubectl(server, ['create', '-f', '-'], migration('secrets-key2', 'secrets'));
      // Writers racing the migration: their changes must survive it.
      await inBatches(concurrentlyUpdated, async (index) => {
        const path = `${secretsPath}/s-${index * 20}`;
        const current = await admin.request<KubeObject>({ method: 'GET', path });
        await admin.request({ method: 'PUT', path, body: { ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } } });
      }, 4);
      await kubectl(server, ['wait', '--for=condition=Succeeded', 'storageversionmigration/secrets-key2', '--timeout=90s']);

      const prefixes = await rawSecretPrefixes();
      expect(prefixes.size).toBe(secretCount);
      expect(new Set(prefixes.values())).toEqual(new Set(['k8s:enc:aesgcm:v1:key2:']));
      for (let index = 0; index < concurrentlyUpdated; index++) {
        const secret = await admin.request<KubeObject>({ method: 'GET', path: `${secretsPath}/s-${index * 20}` });
        expect(secret.metadata.labels).toEqual({ touched: 'yes' });
      }
      const done = await admin.request<StorageVersionMigration>({ method: 'GET', path: `${migrationsPath}/secrets-key2` });
      expect(done.status?.resourceVersion).toMatch(/^\d+$/);
      expect(done.status?.progress?.migratedObjects).toBeGreaterThan(0);
      expect((done.status?.progress?.migratedObjects ?? 0) + (done.status?.progress?.skippedObjects ?? 0)).toBe(secretCount);
      expect(pages).toEqual([500, 1000, secretCount]);
      expect(done.status?.conditions?.map((condition) => [condition.type, condition.status, condition.reason])).toEqual([
        ['Running', 'False', 'StorageVersionMigrationSucceeded'],
        ['Succeeded', 'True', 'StorageVersionMigrationSucceeded'],
      ]);
      const table = await kubectl(server, ['get', 'storageversionmigrations']);
      expect(table).toMatch(/NAME\s+GROUP\s+RESOURCE\s+RUNNING\s+SUCCEEDED\s+FAILED\s+MIGRATED\s+REMAINING\s+PROGRESS\s+AGE/);
      expect(table).toMatch(/secrets-key2\s+secrets\s+False\s+True\s+\d+\s+0\s+100%/);

      const before = await resourceVersions();
      await kubectl(server, ['create', '-f', '-'], migration('secrets-again', 'secrets'));
      await kubectl(server, ['wait', '--for=condition=Succeeded', 'storageversionmigration/secrets-again', '--timeout=90s']);
      expect(await resourceVersions()).toEqual(before);
    } finally {
      await controller.stop();
    }
  });

  it("skips an object deleted or created again since it was listed: the migration's write neither resurrects nor overwrites it", async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const listed = async (name: string): Promise<PageItem> => {
      const object = await admin.request<KubeObject>({ method: 'POST', path, body: { metadata: { name }, data: { v: 'first' } } });
      return { name, namespace: 'default', uid: object.metadata.uid, resourceVersion: object.metadata.resourceVersion ?? '', body: Buffer.from(JSON.stringify(object)) };
    };
    const write = async (item: PageItem) => {
      const response = await admin.raw(migrationWrite(`${path}/${item.name}`, item, true));
      return response.statusCode < 300 ? undefined : errorFromResponse(response.statusCode, response.body);
    };
    // Unchanged: answered 200, nothing written (no new resourceVersion).
    const unchanged = await listed('unchanged');
    expect(await write(unchanged)).toBeUndefined();
    expect((await admin.request<KubeObject>({ method: 'GET', path: `${path}/unchanged` })).metadata.resourceVersion).toBe(unchanged.resourceVersion);
    // Deleted: 404, skipped, and not created again.
    const deleted = await listed('deleted');
    await admin.request({ method: 'DELETE', path: `${path}/deleted` });
    const gone = await write(deleted);
    expect(gone?.code).toBe(404);
    expect(isSkipped(gone)).toBe(true);
    expect((await admin.raw({ method: 'GET', path: `${path}/deleted` })).statusCode).toBe(404);
    // Deleted and created again under its name (another UID): refused, skipped, the new object untouched.
    const recreated = await listed('recreated');
    await admin.request({ method: 'DELETE', path: `${path}/recreated` });
    const replacement = await admin.request<KubeObject>({ method: 'POST', path, body: { metadata: { name: 'recreated' }, data: { v: 'second' } } });
    const refused = await write(recreated);
    expect(isSkipped(refused)).toBe(true);
    // The same name and resourceVersion with another UID (as if the store had reused the revision) is refused too.
    const sameVersion = await write({ ...recreated, resourceVersion: replacement.metadata.resourceVersion ?? '' });
    expect(sameVersion?.code).toBe(422);
    expect(isSkipped(sameVersion)).toBe(true);
    const after = await admin.request<KubeObject>({ method: 'GET', path: `${path}/recreated` });
    expect([after.metadata.uid, after.metadata.resourceVersion, after['data']]).toEqual([replacement.metadata.uid, replacement.metadata.resourceVersion, { v: 'second' }]);
  });

  it('runs migrations of one resource created together one after another, each to Succeeded', async () => {
    const controller = new MigrationController({ rest: server.client(), qps: 0 });
    controller.start();
    try {
      const names = ['queued-1', 'queued-2', 'queued-3', 'queued-4'];
      await kubectl(server, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: names.map((name) => JSON.parse(migration(name, 'secrets')) as unknown) }));
      // The next starts when the informer shows the previous finished, however late that is.
      await kubectl(server, ['wait', '--for=condition=Succeeded', ...names.map((name) => `storageversionmigration/${name}`), '--timeout=90s']);
    } finally {
      await controller.stop();
    }
  });

  it('refuses a change of spec.resource', async () => {
    const response = await admin.raw({
      method: 'PATCH',
      path: `${migrationsPath}/secrets-key2`,
      contentType: 'application/merge-patch+json',
      body: { spec: { resource: { resource: 'configmaps' } } },
    });
    expect(response.statusCode).toBe(422);
    expect(JSON.parse(response.body.toString()).message).toContain('spec: Invalid value');
    expect(JSON.parse(response.body.toString()).message).toContain('field is immutable');
  });

  it('fails the migration with the authorization error instead of retrying it forever', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await admin.request({
      method: 'POST',
      path: `${rbac}/clusterroles`,
      body: {
        metadata: { name: 'limited-migrator' },
        rules: [
          { apiGroups: ['storagemigration.k8s.io'], resources: ['storageversionmigrations', 'storageversionmigrations/status'], verbs: ['get', 'list', 'watch', 'update'] },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
        ],
      },
    });
    await admin.request({
      method: 'POST',
      path: `${rbac}/clusterrolebindings`,
      body: {
        metadata: { name: 'limited-migrator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'limited-migrator' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'limited-migrator' }],
      },
    });
    await admin.request({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: { metadata: { name: 'c1' }, data: { a: 'b' } },
    });
    const ca = admin.config.ca;
    const limited = new RestClient({ server: server.url, token: 'limited-token', ...(ca ? { ca } : {}) });
    const controller = new MigrationController({ rest: limited, qps: 0 });
    controller.start();
    try {
      await kubectl(server, ['create', '-f', '-'], migration('configmaps-denied', 'configmaps'));
      await kubectl(server, ['wait', '--for=condition=Failed', 'storageversionmigration/configmaps-denied', '--timeout=60s']);
      const failed = await admin.request<StorageVersionMigration>({ method: 'GET', path: `${migrationsPath}/configmaps-denied` });
      const condition = failed.status?.conditions?.find((candidate) => candidate.type === 'Failed');
      expect(condition?.reason).toBe('StorageVersionMigrationFailed');
      expect(condition?.message).toContain('migration encountered unhandled error: ');
      // The migrator writes with a merge PATCH of uid and resourceVersion where the resource offers patch.
      expect(condition?.message).toContain('configmaps "c1" is forbidden: User "limited-migrator" cannot patch resource "configmaps"');
    } finally {
      await controller.stop();
      limited.close();
    }
  });
});
