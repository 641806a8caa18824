import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeList } from '@kapi/apimachinery';
import { sleep, type RestClient } from '@kapi/client';
import type { StorageVersionMigration } from '@kapi/migrator';
import { kubectl, startServer, type TestServer } from './harness.js';
import { startMigrator, tokenKubeconfig } from './standalone-migrator.js';

const role = 'system:controller:storage-version-migrator-controller';
const serviceAccountUser = 'system:serviceaccount:kube-system:storage-version-migrator-controller';
const migrationsPath = '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations';
const configMapCount = 60;

let directory: string;
let server: TestServer;
let admin: RestClient;

const migration = (name: string, resource: string, group = '') =>
  JSON.stringify({ apiVersion: 'storagemigration.k8s.io/v1beta1', kind: 'StorageVersionMigration', metadata: { name }, spec: { resource: { group, resource } } });

const isTrue = (object: StorageVersionMigration, type: string) =>
  object.status?.conditions?.some((condition) => condition.type === type && condition.status === 'True') ?? false;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'kapi-migrator-rbac-'));
  writeFileSync(
    join(directory, 'tokens.csv'),
    [
      `sa-token,${serviceAccountUser},sa-uid,"system:serviceaccounts,system:serviceaccounts:kube-system"`,
      'narrow-token,narrow-migrator,narrow-uid,""',
      'nobody-token,nobody,nobody-uid,""',
    ].join('\n') + '\n',
  );
  server = await startServer({ args: [`--token-auth-file=${join(directory, 'tokens.csv')}`, '--storage-version-migrator=false'] });
  admin = server.client();
  for (let index = 0; index < configMapCount; index++) {
    await admin.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: { metadata: { name: `c-${index}` }, data: { index: `${index}` } } });
  }
  await admin.request({ method: 'POST', path: '/api/v1/namespaces/default/secrets', body: { metadata: { name: 's-0' }, stringData: { a: 'b' } } });
});

afterAll(async () => {
  await server?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('the standalone migrator under least privilege', () => {
  it('migrates everything as the service account bound to the bootstrapped role, with progress per page in kubectl and its output', async () => {
    const binding = JSON.parse(await kubectl(server, ['get', 'clusterrolebinding', role, '-o', 'json'])) as { roleRef: { name: string }; subjects: unknown[] };
    expect(binding.roleRef.name).toBe(role);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'storage-version-migrator-controller', namespace: 'kube-system' }]);
    const clusterRole = JSON.parse(await kubectl(server, ['get', 'clusterrole', role, '-o', 'json'])) as { rules: Array<{ verbs: string[] }> };
    expect(clusterRole.rules.flatMap((rule) => rule.verbs)).not.toContain('*');

    // Leader election and the trigger on (the defaults): the trigger migrates every resource of this new server.
    const kubeconfig = tokenKubeconfig(server, 'sa-token', join(directory, 'sa.kubeconfig'));
    // No --page-size (500): throttled to 20 writes/s, the migrator lists pages of about a quarter second of writes (at least 10).
    const migrator = await startMigrator([`--kubeconfig=${kubeconfig}`, '--qps=20', '--burst=1']);
    try {
      // Every ConfigMap of the server is migrated: the test's and those the server made itself
      // (kube-system/extension-apiserver-authentication, published before readyz).
      const total = (await admin.request<{ items: unknown[] }>({ method: 'GET', path: '/api/v1/configmaps' })).items.length;
      expect(total).toBeGreaterThanOrEqual(configMapCount);
      await kubectl(server, ['create', '-f', '-'], migration('configmaps-progress', 'configmaps'));
      const shown = new Set<string>();
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        const row = (await kubectl(server, ['get', 'storageversionmigrations', 'configmaps-progress', '--no-headers'])).trim();
        shown.add(row.split(/\s+/).at(-2) ?? '');
        if (shown.has('100%')) break;
        await sleep(150);
      }
      // Pages of 10 at 20 writes/s: kubectl sees the progress move between 0 % and 100 %.
      expect(shown).toContain('100%');
      expect([...shown].some((cell) => /^([1-9]|[1-9]\d)%$/.test(cell))).toBe(true);
      await kubectl(server, ['wait', '--for=condition=Succeeded', 'storageversionmigration/configmaps-progress', '--timeout=30s']);
      const header = (await kubectl(server, ['get', 'storageversionmigrations', 'configmaps-progress'])).split('\n')[0];
      expect(header).toMatch(/NAME\s+GROUP\s+RESOURCE\s+RUNNING\s+SUCCEEDED\s+FAILED\s+MIGRATED\s+REMAINING\s+PROGRESS\s+AGE/);
      const done = await admin.request<StorageVersionMigration>({ method: 'GET', path: `${migrationsPath}/configmaps-progress` });
      expect(done.status?.progress).toMatchObject({ migratedObjects: total, skippedObjects: 0, remainingObjects: 0, percent: 100 });
      const percent = (done: number) => Math.floor((done * 100) / total);
      expect(migrator.output()).toContain(`configmaps-progress: 20/${total} ${percent(20)}% (20 migrated, 0 skipped)`);
      expect(migrator.output()).toContain(`configmaps-progress: 40/${total} ${percent(40)}% (40 migrated, 0 skipped)`);
      expect(migrator.output()).toContain(`configmaps-progress: ${total}/${total} 100% (${total} migrated, 0 skipped)`);

      // Every migration the trigger started succeeds too, and one of the cluster roles (which a no-op write passes
      // without the escalation check's rules).
      await kubectl(server, ['create', '-f', '-'], migration('clusterroles', 'clusterroles', 'rbac.authorization.k8s.io'));
      // (Done when every migration has finished and no new one came for 3 s.)
      let migrations: StorageVersionMigration[] = [];
      let settledSince = Date.now();
      for (const deadline = Date.now() + 90_000; Date.now() < deadline; await sleep(250)) {
        const now = (await admin.request<KubeList<StorageVersionMigration>>({ method: 'GET', path: migrationsPath })).items;
        const finished = now.every((candidate) => isTrue(candidate, 'Succeeded') || isTrue(candidate, 'Failed'));
        if (!finished || now.length !== migrations.length) settledSince = Date.now();
        migrations = now;
        if (Date.now() - settledSince > 3000) break;
      }
      const resources = migrations.map((candidate) => candidate.spec?.resource?.resource);
      expect(resources).toEqual(expect.arrayContaining(['clusterroles', 'configmaps', 'namespaces', 'secrets', 'serviceaccounts']));
      expect(migrations.filter((candidate) => !isTrue(candidate, 'Succeeded')).map((candidate) => candidate.status?.conditions)).toEqual([]);
      expect(migrator.output()).not.toMatch(/forbidden/i);
    } finally {
      await migrator.kill();
    }
  }, 180_000);

  it('fails a migration of a resource its role does not cover with a Failed condition naming the refusal', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await admin.request({
      method: 'POST',
      path: `${rbac}/clusterroles`,
      body: {
        metadata: { name: 'narrow-migrator' },
        rules: [
          { apiGroups: ['storagemigration.k8s.io'], resources: ['storageversionmigrations', 'storageversionmigrations/status'], verbs: ['get', 'list', 'watch', 'update'] },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'update', 'patch'] },
          { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
        ],
      },
    });
    await admin.request({
      method: 'POST',
      path: `${rbac}/clusterrolebindings`,
      body: {
        metadata: { name: 'narrow-migrator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'narrow-migrator' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'narrow-migrator' }],
      },
    });
    const kubeconfig = tokenKubeconfig(server, 'narrow-token', join(directory, 'narrow.kubeconfig'));
    const migrator = await startMigrator([`--kubeconfig=${kubeconfig}`, '--qps=0', '--trigger=false', '--leader-elect=false']);
    try {
      await kubectl(server, ['create', '-f', '-'], migration('secrets-narrow', 'secrets'));
      await kubectl(server, ['wait', '--for=condition=Failed', 'storageversionmigration/secrets-narrow', '--timeout=60s']);
      const failed = await admin.request<StorageVersionMigration>({ method: 'GET', path: `${migrationsPath}/secrets-narrow` });
      const condition = failed.status?.conditions?.find((candidate) => candidate.type === 'Failed');
      expect(condition?.reason).toBe('StorageVersionMigrationFailed');
      expect(condition?.message).toBe(
        'migration encountered unhandled error: secrets "s-0" is forbidden: User "narrow-migrator" cannot patch resource "secrets" in API group "" in the namespace "default"',
      );
      expect(migrator.output()).toContain('secrets-narrow: Failed: migration encountered unhandled error: secrets "s-0" is forbidden');
    } finally {
      await migrator.kill();
    }
  }, 90_000);

  it('refuses to start without the role, naming what its user may not do', async () => {
    const kubeconfig = tokenKubeconfig(server, 'nobody-token', join(directory, 'nobody.kubeconfig'));
    const migrator = await startMigrator([`--kubeconfig=${kubeconfig}`], false);
    expect(await migrator.exited).toBe(1);
    expect(migrator.output()).toContain(
      "error: the migrator's user may not list storageversionmigrations.storagemigration.k8s.io, watch storageversionmigrations.storagemigration.k8s.io, " +
        'update storageversionmigrations/status.storagemigration.k8s.io,',
    );
    expect(migrator.output()).toContain(`get leases.coordination.k8s.io in kube-system, create leases.coordination.k8s.io in kube-system`);
    expect(migrator.output()).toContain(`bind it to the ClusterRole ${role}`);
  }, 60_000);
});
