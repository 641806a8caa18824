import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
let previousUmask: number;

beforeAll(async () => {
  // A permissive umask: the server must not rely on the environment to keep its files private.
  previousUmask = process.umask(0o000);
  // A data dir the server creates itself (mkdtemp would already make it 0700).
  server = await startServer({ dataDir: join(mkdtempSync(join(tmpdir(), 'kapi-files-')), 'data') });
  // A write, so the WAL and SHM files exist and hold data.
  await server.client().request({
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'on-disk' }, data: { a: '1' } },
  });
});

afterAll(async () => {
  process.umask(previousUmask);
  await server?.stop();
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('files on disk are owner-only whatever the umask', () => {
  it('the data dir is 0700', () => {
    expect(mode(server.dataDir).toString(8)).toBe('700');
  });

  it.each(['kapi.db', 'kapi.db-wal', 'kapi.db-shm', 'service-account.key'])('%s is 0600', (file) => {
    expect(mode(join(server.dataDir, file)).toString(8)).toBe('600');
  });
});
