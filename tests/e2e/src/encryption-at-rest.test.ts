import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import { startEtcd, type EtcdInstance } from '@kapi/storage-etcd3/testing';
import { startServer, type TestServer } from './harness.js';

const password = 'correct horse battery staple';
const key1 = { name: 'key1', secret: randomBytes(32).toString('base64') };
const key2 = { name: 'key2', secret: randomBytes(32).toString('base64') };

/** An EncryptionConfiguration for secrets with the given aescbc keys (first writes), then identity. */
const configuration = (keys: Array<{ name: string; secret: string }>) =>
  JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'EncryptionConfiguration',
    resources: [{ resources: ['secrets'], providers: [{ aescbc: { keys } }, { identity: {} }] }],
  });

const secretsPath = '/api/v1/namespaces/default/secrets';
const secret = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  stringData: { password },
});

/** How each backend's stored bytes are read, bypassing the server. */
interface RawStore {
  args: string[];
  read(key: string): Promise<Buffer | undefined>;
  close(): Promise<void>;
}

async function sqliteStore(dataDir: string): Promise<RawStore> {
  const database = new Database(join(dataDir, 'kapi.db'), { readonly: true, fileMustExist: false });
  return {
    args: ['--storage=sqlite'],
    read: async (key) => {
      const row = database
        .prepare('SELECT value FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1')
        .get(Buffer.from(key)) as { value: Buffer } | undefined;
      return row?.value;
    },
    close: async () => {
      database.close();
    },
  };
}

async function etcdStore(): Promise<RawStore> {
  const etcd: EtcdInstance = await startEtcd();
  const client = new Etcd3({ hosts: etcd.endpoint });
  return {
    args: ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`],
    read: async (key) => (await client.get(key).exec()).kvs[0]?.value,
    close: async () => {
      client.close();
      await etcd.stop();
    },
  };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const backend of ['sqlite', 'etcd'] as const) {
  describe(`encryption at rest on ${backend}`, () => {
    let directory: string;
    let configPath: string;
    let raw: RawStore;
    let server: TestServer;

    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), 'kapi-encryption-'));
      configPath = join(directory, 'encryption.yaml');
      writeFileSync(configPath, configuration([key1]));
      const dataDir = join(directory, 'data');
      if (backend === 'etcd') raw = await etcdStore();
      server = await startServer({
        dataDir,
        args: [
          ...(backend === 'etcd' ? raw.args : ['--storage=sqlite']),
          `--encryption-provider-config=${configPath}`,
          '--encryption-provider-config-automatic-reload=true',
          // The in-process migrator's start-up migrations rewrite every Secret; when one runs after the
          // rotation below it re-encrypts s1 with key2 before the test's own no-op PUT can.
          '--storage-version-migrator=false',
        ],
      });
      if (backend === 'sqlite') raw = await sqliteStore(dataDir);
    });

    afterAll(async () => {
      await server?.stop();
      await raw?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    it('stores secrets encrypted with the first key, leaves other resources plain, and serves them decrypted', async () => {
      const client = server.client();
      await client.request({ method: 'POST', path: secretsPath, body: secret('s1') });
      await client.request({
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { note: password } },
      });

      const stored = await raw.read('/registry/secrets/default/s1');
      expect(stored?.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key1:');
      expect(stored?.includes(Buffer.from(password).toString('base64'))).toBe(false);
      expect(stored?.includes('"kind"')).toBe(false);
      expect((await raw.read('/registry/configmaps/default/c1'))?.toString()).toContain(password);

      const served = await client.request<KubeObject & { data: Record<string, string> }>({ method: 'GET', path: `${secretsPath}/s1` });
      expect(Buffer.from(served.data.password ?? '', 'base64').toString()).toBe(password);
    });

    it('after rotation to key2 (reloaded from the file), a no-op update re-encrypts with key2 and a second one writes nothing', async () => {
      const client = server.client();
      writeFileSync(configPath, configuration([key2, key1]));
      await waitFor(() => server.output().includes('encryption at rest: reloaded providers'), 'the configuration reload');

      const before = await client.request<KubeObject>({ method: 'GET', path: `${secretsPath}/s1` });
      expect((await raw.read('/registry/secrets/default/s1'))?.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key1:');
      // What the storage version migrator does: write the object back unchanged, with its resourceVersion.
      const rewritten = await client.request<KubeObject>({ method: 'PUT', path: `${secretsPath}/s1`, body: before });
      expect(rewritten.metadata?.resourceVersion).not.toBe(before.metadata?.resourceVersion);
      expect((await raw.read('/registry/secrets/default/s1'))?.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key2:');

      const again = await client.request<KubeObject>({ method: 'PUT', path: `${secretsPath}/s1`, body: rewritten });
      expect(again.metadata?.resourceVersion).toBe(rewritten.metadata?.resourceVersion);

      await client.request({ method: 'POST', path: secretsPath, body: secret('s2') });
      expect((await raw.read('/registry/secrets/default/s2'))?.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key2:');
    });

    it('keeps the previous providers when the changed file does not load', async () => {
      const client = server.client();
      writeFileSync(configPath, configuration([{ name: 'short', secret: randomBytes(20).toString('base64') }]));
      await waitFor(() => server.output().includes('encryption at rest: keeping the previous providers'), 'the refused reload');
      expect(server.output()).toContain('secret is not of the expected length, got 20, expected one of [16 24 32]');
      await client.request({ method: 'POST', path: secretsPath, body: secret('s3') });
      expect((await raw.read('/registry/secrets/default/s3'))?.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key2:');
    });
  });
}
