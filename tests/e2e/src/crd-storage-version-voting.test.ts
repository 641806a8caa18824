import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RestClient } from '@kapi/client';
import { afterAll, describe, expect, it } from 'vitest';
import { customResourceDefinition, until } from './crd-fixtures.js';
import { kubectl, startServer, type TestServer } from './harness.js';

const group = 'vote.example.com';

/** A two-version CRD storing `storage`. */
const crd = (storage: string) => JSON.stringify(customResourceDefinition({ group, kind: 'Widget', versions: ['v1', 'v2'], storage }));

const widget = (name: string, version: string) =>
  JSON.stringify({ apiVersion: `${group}/${version}`, kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size: 3 } });

/** The newest raw value of `key` in the server's SQLite file (read-only, beside the running server). */
function rawValue(dataDir: string, key: string): string | undefined {
  const database = new Database(join(dataDir, 'kapi.db'), { readonly: true });
  try {
    const row = database.prepare('SELECT value FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1').get(Buffer.from(key)) as
      | { value: Buffer }
      | undefined;
    return row?.value.toString('utf8');
  } finally {
    database.close();
  }
}

async function commonEncodingVersion(client: RestClient): Promise<string | undefined> {
  const object = await client
    .request<{ status?: { commonEncodingVersion?: string } }>({
      method: 'GET',
      path: `/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/${group}.widgets`,
    })
    .catch(() => ({ status: undefined }));
  return object.status?.commonEncodingVersion;
}

describe('storage-version voting applies to custom resources (--storage-version-mode=vote)', () => {
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('votes on a multi-version CRD when it is served, stores its objects in the selection, and follows a storage version change', async () => {
    server = await startServer({ args: ['--storage=sqlite', '--storage-version-mode=vote'] });
    const client = server.client();
    const selectionKey = `/registry/storage-version-selection/${group}.widgets`;

    await kubectl(server, ['apply', '-f', '-'], crd('v2'));
    await kubectl(server, ['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=60s']);
    // Writes wait behind the barrier until the vote is published; then the create succeeds.
    await until('create at v1', () => kubectl(server!, ['apply', '-f', '-'], widget('w1', 'v1')).then(() => true, () => false), Boolean);

    expect(rawValue(server.dataDir, selectionKey)).toBe('v2');
    expect(JSON.parse(rawValue(server.dataDir, '/registry/vote.example.com/widgets/default/w1') ?? '{}')).toMatchObject({ apiVersion: `${group}/v2` });
    expect(await commonEncodingVersion(client)).toBe(`${group}/v2`);
    const atV1 = JSON.parse(await kubectl(server, ['get', `widgets.v1.${group}`, 'w1', '-o', 'json'])) as { apiVersion: string; spec: unknown };
    expect(atV1).toMatchObject({ apiVersion: `${group}/v1`, spec: { size: 3 } });

    // This server is the only voter: its new preference becomes the selection, and new writes follow it.
    await kubectl(server, ['apply', '-f', '-'], crd('v1'));
    await until('selection', () => rawValue(server!.dataDir, selectionKey), (value) => value === 'v1');
    await until('common encoding version', () => commonEncodingVersion(client), (value) => value === `${group}/v1`);
    await until('create at v2', () => kubectl(server!, ['apply', '-f', '-'], widget('w2', 'v2')).then(() => true, () => false), Boolean);
    expect(JSON.parse(rawValue(server.dataDir, '/registry/vote.example.com/widgets/default/w2') ?? '{}')).toMatchObject({ apiVersion: `${group}/v1` });
    // The object written before the switch is still read, in both versions.
    expect(JSON.parse(await kubectl(server, ['get', `widgets.v2.${group}`, 'w1', '-o', 'json']))).toMatchObject({ apiVersion: `${group}/v2` });
  });
});
