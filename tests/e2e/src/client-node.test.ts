import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startServerOn } from './backends.js';
import type { TestServer } from './harness.js';

describe.each(backends)('@kubernetes/client-node against kube-apiserver-lite on %s', (backend) => {
  let server: TestServer;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;

  beforeAll(async () => {
    server = await startServerOn(backend);
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'client-node' } } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  const namespace = 'client-node';

  it('does CRUD on config maps', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'crud' }, data: { a: '1' } },
    });
    expect(created.metadata?.uid).toBeTruthy();
    const read = await core.readNamespacedConfigMap({ name: 'crud', namespace });
    expect(read.data).toEqual({ a: '1' });
    read.data = { a: '2' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'crud', namespace, body: read });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(
      Number(read.metadata?.resourceVersion),
    );
    await core.deleteNamespacedConfigMap({ name: 'crud', namespace });
    await expect(core.readNamespacedConfigMap({ name: 'crud', namespace })).rejects.toMatchObject({
      code: 404,
    });
  });

  it('applies server-side through KubernetesObjectApi.patch', async () => {
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    const spec = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ssa', namespace },
      data,
    });
    const apply = k8s.PatchStrategy.ServerSideApply;
    const created = (await objects.patch(
      spec({ a: '1' }),
      undefined,
      undefined,
      'first',
      false,
      apply,
    )) as k8s.V1ConfigMap;
    expect(created.metadata?.managedFields?.map((entry) => [entry.manager, entry.operation])).toEqual([
      ['first', 'Apply'],
    ]);
    await expect(
      objects.patch(spec({ a: '2' }), undefined, undefined, 'second', false, apply),
    ).rejects.toMatchObject({
      code: 409,
    });
    const forced = (await objects.patch(
      spec({ a: '2' }),
      undefined,
      undefined,
      'second',
      true,
      apply,
    )) as k8s.V1ConfigMap;
    expect(forced.data).toEqual({ a: '2' });
    expect(forced.metadata?.managedFields?.map((entry) => entry.manager)).toEqual(['second']);
  });

  it('pages a list with limit and continue', async () => {
    for (let i = 0; i < 5; i++)
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: `page-${i}`, labels: { paged: 'yes' } } },
      });
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedConfigMap({
        namespace,
        labelSelector: 'paged=yes',
        limit: 2,
        ...(token ? { _continue: token } : {}),
      });
      names.push(...page.items.map((item) => item.metadata?.name ?? ''));
      token = page.metadata?._continue || undefined;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(names).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
  });

  it('watches with bookmarks allowed', async () => {
    const list = await core.listNamespacedConfigMap({ namespace });
    const events: string[] = [];
    const watch = new k8s.Watch(kc);
    const request = await watch.watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { allowWatchBookmarks: true, resourceVersion: list.metadata?.resourceVersion },
      (type: string, object: k8s.V1ConfigMap) => events.push(`${type}:${object.metadata?.name ?? ''}`),
      () => undefined,
    );
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'watched' } } });
    await core.deleteNamespacedConfigMap({ name: 'watched', namespace });
    const deadline = Date.now() + 10_000;
    while (!events.includes('DELETED:watched') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    request.abort();
    expect(events.filter((e) => !e.startsWith('BOOKMARK'))).toEqual(['ADDED:watched', 'DELETED:watched']);
  });

  it('keeps a makeInformer cache in sync', async () => {
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () =>
      core.listNamespacedConfigMap({ namespace }),
    );
    const seen = new Set<string>();
    informer.on('add', (object: k8s.V1ConfigMap) => seen.add(object.metadata?.name ?? ''));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'informed' } } });
    const deadline = Date.now() + 10_000;
    while (!seen.has('informed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await informer.stop();
    expect(seen.has('informed')).toBe(true);
    const cache = informer as unknown as k8s.ObjectCache<k8s.V1ConfigMap>;
    expect(cache.list().some((object) => object.metadata?.name === 'page-0')).toBe(true);
  });
});
