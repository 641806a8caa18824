import * as k8s from '@kubernetes/client-node';
import { ResourceClient, RestClient, loadKubeconfig, sleep } from '@kapi/client';
import { afterAll, describe, expect, it } from 'vitest';
import { customResourceDefinition } from './crd-fixtures.js';
import { freePort, kubectl, startServer, waitReady, type TestServer } from './harness.js';

const group = 'restart.example.com';
const crd = JSON.stringify(customResourceDefinition({ group, kind: 'Widget' }));

describe('a @kubernetes/client-node informer on a custom resource across a server restart (KEP-1904)', () => {
  let server: TestServer | undefined;

  afterAll(async () => {
    await server?.stop();
  });

  it('resumes its watch without relisting or seeing a 410', async () => {
    const port = await freePort();
    const args = ['--storage=sqlite', '--progress-notify-interval=1s'];
    server = await startServer({ port, args, keepDataDir: true });
    await kubectl(server, ['apply', '-f', '-'], crd);
    await kubectl(server, ['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=30s']);
    await kubectl(server, ['create', 'namespace', 'idle']);
    const widget = (name: string) => JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, namespace: 'idle' }, spec: { size: 1 } });
    for (const name of ['a', 'b']) await kubectl(server, ['create', '-f', '-'], widget(name));

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    let lists = 0;
    let expired = 0;
    let running = true;
    const informer = k8s.makeInformer(kc, `/apis/${group}/v1/namespaces/idle/widgets`, () => {
      lists++;
      return custom.listNamespacedCustomObject({ group, version: 'v1', namespace: 'idle', plural: 'widgets' }) as never;
    });
    const seen = new Set<string>();
    informer.on('add', (object: k8s.KubernetesObject) => seen.add(object.metadata?.name ?? ''));
    informer.on('error', (error: unknown) => {
      if ((error as { code?: number }).code === 410 || (error as { statusCode?: number }).statusCode === 410) expired++;
      if (running) setTimeout(() => void informer.start().catch(() => undefined), 300);
    });
    await informer.start();

    // Other writes move the revision on while the informer's resource stays idle.
    const admin = new RestClient(loadKubeconfig(server.kubeconfig));
    const configMaps = new ResourceClient(admin, { group: '', version: 'v1', resource: 'configmaps', namespaced: true });
    for (let i = 0; i < 20; i++) await configMaps.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'busy-' } });
    admin.close();
    await sleep(2500);

    const dataDir = server.dataDir;
    await server.stop();
    server = await startServer({ port, args, dataDir, keepDataDir: true });
    await waitReady(server);
    await sleep(3000);
    const created = JSON.parse(await kubectl(server, ['create', '-o', 'json', '-f', '-'], widget('after-restart'))) as k8s.KubernetesObject;
    const latest = () => Number((informer as unknown as { latestResourceVersion(): string }).latestResourceVersion());
    for (let waited = 0; waited < 10_000 && !seen.has('after-restart'); waited += 100) await sleep(100);
    running = false;
    await informer.stop();

    expect(seen.has('after-restart')).toBe(true);
    expect(latest()).toBeGreaterThanOrEqual(Number(created.metadata?.resourceVersion));
    expect(expired).toBe(0);
    expect(lists).toBe(1);
  });
});
