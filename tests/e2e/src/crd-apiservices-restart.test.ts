import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { kubectl, startServer, until, type TestServer } from './harness.js';

/**
 * On start, kube-apiserver-lite deletes the automanaged APIServices of custom resource group/versions that
 * no CRD serves any longer (left behind when a server stopped between a CRD's deletion and its APIService's),
 * as upstream's autoregister controller syncs the APIServices it manages; the ones of served CRDs and
 * APIServices without the automanaged label stay.
 */
let server: TestServer | undefined;

afterAll(async () => {
  await server?.stop();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

const apiService = (name: string, group: string, labels?: Record<string, string>) => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: { group, version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 },
});

async function names(): Promise<string[]> {
  return (await kubectl(server!, ['get', 'apiservices', '-o', 'name'])).split('\n').filter(Boolean);
}

/** The APIService names once `done` holds for them (polled). */
function namesOnce(what: string, done: (current: string[]) => boolean): Promise<string[]> {
  return until(what, async () => {
    const current = await names();
    return done(current) ? current : undefined;
  });
}

describe('custom resource APIServices across a restart', () => {
  it('deletes the stale automanaged ones on start, keeps the served and the unmanaged ones', async () => {
    server = await startServer({ keepDataDir: true });
    const dataDir = server.dataDir;
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.restart.example.com' },
      spec: {
        group: 'restart.example.com',
        scope: 'Namespaced',
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(crd));
    const served = 'apiservice.apiregistration.k8s.io/v1.restart.example.com';
    const stale = 'apiservice.apiregistration.k8s.io/v1.stale.example.com';
    const unmanaged = 'apiservice.apiregistration.k8s.io/v1.unmanaged.example.com';
    await namesOnce('the CRD APIService', (current) => current.includes(served));
    // What a server stopped between a CRD's deletion and its APIService's leaves behind, and a user's own.
    await kubectl(server, ['create', '-f', '-'], JSON.stringify(apiService('v1.stale.example.com', 'stale.example.com', { 'kube-aggregator.kubernetes.io/automanaged': 'true' })));
    await kubectl(server, ['create', '-f', '-'], JSON.stringify(apiService('v1.unmanaged.example.com', 'unmanaged.example.com')));
    // Running, the server leaves them: only a start syncs what it manages against the CRDs.
    expect(await names()).toEqual(expect.arrayContaining([served, stale, unmanaged]));

    await server.stop();
    server = await startServer({ dataDir });
    const after = await namesOnce('the stale APIService to be deleted', (current) => !current.includes(stale));
    expect(after).toEqual(expect.arrayContaining([served, unmanaged]));
    expect(server.output()).toContain('deleting v1.stale.example.com (no CRD serves them)');
  }, 180_000);
});
