import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeList, KubeObject } from '@kapi/apimachinery';
import { sleep, type RestClient } from '@kapi/client';
import type { StorageVersionMigration } from '@kapi/migrator';
import { freePort, startServer, type TestServer } from './harness.js';
import { startMigrator } from './standalone-migrator.js';

// 2,000 in CI; the 20,000 with `pnpm --filter @kapi/e2e test:long` (KAPI_MIGRATOR_CRASH_OBJECTS=20000).
const secretCount = Number(process.env.KAPI_MIGRATOR_CRASH_OBJECTS ?? 2000);
const timeScale = Math.max(1, secretCount / 2000);
const deletedDuringMigration = 20;
const secretsPath = '/api/v1/namespaces/default/secrets';
const migrationPath = '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations/secrets-rotation';
const key1 = { name: 'key1', secret: randomBytes(32).toString('base64') };
const key2 = { name: 'key2', secret: randomBytes(32).toString('base64') };
const configuration = (keys: Array<{ name: string; secret: string }>) =>
  JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'EncryptionConfiguration',
    resources: [{ resources: ['secrets'], providers: [{ secretbox: { keys } }] }],
  });

let directory: string;
let server: TestServer;
let admin: RestClient;
let port: number;

const serverArgs = () => [
  `--encryption-provider-config=${join(directory, 'encryption.yaml')}`,
  '--encryption-provider-config-automatic-reload=true',
  '--storage-version-migrator=false',
];

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'kapi-migrator-crash-'));
  writeFileSync(join(directory, 'encryption.yaml'), configuration([key1]));
  port = await freePort();
  server = await startServer({ port, dataDir: join(directory, 'data'), keepDataDir: true, args: serverArgs() });
  admin = server.client();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < secretCount) {
        const index = next++;
        await admin.request({ method: 'POST', path: secretsPath, body: { metadata: { name: `s-${index}` }, stringData: { value: `${index}` } } });
      }
    }),
  );
}, 60_000 * timeScale);

afterAll(async () => {
  await server?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('the standalone migrator SIGKILLed after each saved page', () => {
  it('completes the migration across an apiserver restart, resumes instead of restarting, and neither loses nor resurrects objects', async () => {
    writeFileSync(join(directory, 'encryption.yaml'), configuration([key2, key1]));
    const reloadDeadline = Date.now() + 20_000;
    while (!server.output().includes('encryption at rest: reloaded providers')) {
      if (Date.now() > reloadDeadline) throw new Error('the encryption configuration was not reloaded');
      await sleep(100);
    }
    await admin.request({
      method: 'POST',
      path: '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations',
      body: { metadata: { name: 'secrets-rotation' }, spec: { resource: { group: '', resource: 'secrets' } } },
    });

    const progressAfterKill: number[] = [];
    let kills = 0;
    let succeeded = false;
    for (let attempt = 0; attempt < 40 * timeScale && !succeeded; attempt++) {
      const migrator = await startMigrator([`--kubeconfig=${server.kubeconfig}`, '--qps=500', '--burst=50', '--leader-elect=false', '--trigger=false']);
      // Killed as soon as it reports a saved page (so mid-migration whatever the machine's speed), or when the
      // migration has succeeded, or after 60 s at most.
      const runDeadline = Date.now() + 60_000 * timeScale;
      for (;;) {
        if (/secrets-rotation: \d+\/\d+ \d+% \(/.test(migrator.output()) || Date.now() > runDeadline) break;
        const current = await admin.request<StorageVersionMigration>({ method: 'GET', path: migrationPath });
        if (current.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True')) break;
        await sleep(100);
      }
      await migrator.kill();
      const migration = await admin.request<StorageVersionMigration>({ method: 'GET', path: migrationPath });
      const progress = migration.status?.progress;
      progressAfterKill.push((progress?.migratedObjects ?? 0) + (progress?.skippedObjects ?? 0));
      succeeded = migration.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True') ?? false;
      if (!succeeded) kills++;
      console.log(`[migrator crash] after run ${attempt + 1}: ${progressAfterKill.at(-1)} objects done, succeeded ${succeeded}`);
      if (kills === 2 && !succeeded) {
        // The apiserver restarts mid-way too (same port, data and kubeconfig).
        await server.stop();
        server = await startServer({ port, dataDir: join(directory, 'data'), keepDataDir: true, args: serverArgs() });
        admin = server.client();
      }
      if (kills === 1 && !succeeded) {
        // Deleted while the migration runs: a later page must not bring them back.
        for (let index = 0; index < deletedDuringMigration; index++) {
          await admin.request({ method: 'DELETE', path: `${secretsPath}/s-${secretCount - 1 - index}` });
        }
      }
    }
    console.log(`[migrator crash] kills: ${kills}, saved progress after each kill: ${progressAfterKill.join(', ')}`);
    expect(succeeded).toBe(true);
    expect(kills).toBeGreaterThanOrEqual(2);
    for (let index = 1; index < progressAfterKill.length; index++) {
      expect(progressAfterKill[index]).toBeGreaterThanOrEqual(progressAfterKill[index - 1] as number);
    }

    const list = await admin.request<KubeList<KubeObject>>({ method: 'GET', path: secretsPath });
    const names = new Set(list.items.map((item) => item.metadata.name));
    expect(names.size).toBe(secretCount - deletedDuringMigration);
    for (let index = 0; index < secretCount - deletedDuringMigration; index++) expect(names.has(`s-${index}`)).toBe(true);

    const database = new Database(join(directory, 'data', 'kapi.db'), { readonly: true });
    try {
      const latest = database.prepare('SELECT type, value FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1');
      for (let index = 0; index < secretCount; index++) {
        const row = latest.get(Buffer.from(`/registry/secrets/default/s-${index}`)) as { type: number; value: Buffer } | undefined;
        if (index >= secretCount - deletedDuringMigration) {
          expect(row?.type).not.toBe(0);
          continue;
        }
        expect(row?.value.subarray(0, 'k8s:enc:secretbox:v1:key2:'.length).toString()).toBe('k8s:enc:secretbox:v1:key2:');
      }
    } finally {
      database.close();
    }
  }, 400_000 * timeScale);
});
