import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startServer, type TestServer } from './harness.js';

/**
 * The garbage collector of kube-apiserver-lite with real kubectl: dependents (ownerReferences) of a
 * deleted owner are deleted (background), deleted first (foreground), or kept without the reference (orphan).
 */
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

interface Meta {
  uid: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: Array<{ uid: string; name: string; blockOwnerDeletion?: boolean }>;
}

async function create(object: Record<string, unknown>): Promise<Meta> {
  const out = await kubectl(server, ['create', '-o', 'json', '-f', '-'], JSON.stringify(object));
  return (JSON.parse(out) as { metadata: Meta }).metadata;
}

/** The object's metadata, or undefined when it does not exist. */
async function read(kind: string, name: string, namespace = 'default'): Promise<Meta | undefined> {
  const out = await kubectl(server, ['get', kind, name, '-n', namespace, '-o', 'json', '--ignore-not-found']);
  return out.trim() ? (JSON.parse(out) as { metadata: Meta }).metadata : undefined;
}

async function until<T>(what: string, get: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const ownerRef = (kind: string, name: string, uid: string, apiVersion = 'v1', block = false) => ({
  apiVersion,
  kind,
  name,
  uid,
  ...(block ? { blockOwnerDeletion: true } : {}),
});

const configMap = (name: string, owners: unknown[] = [], finalizers?: string[]) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', ownerReferences: owners, ...(finalizers ? { finalizers } : {}) },
  data: { a: '1' },
});
const secret = (name: string, owners: unknown[]) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'default', ownerReferences: owners },
  stringData: { a: '1' },
});

describe('garbage collector', () => {
  it('reads every resource from the watch caches in process, not through watches over HTTP', async () => {
    // Collected resources are watched (the graph holds the dependent ConfigMap: it has an owner)...
    const owner = await create(configMap('watched-owner', []));
    await create(configMap('watched', [ownerRef('ConfigMap', 'watched-owner', owner.uid)]));
    // The collector starts once this server holds the kube-controller-manager lease: the graph fills then.
    const metrics = await until('the graph to hold the dependent', () => kubectl(server, ['get', '--raw', '/metrics']), (text) =>
      /^garbage_collector_graph_objects [1-9]/m.test(text),
    );
    // ...but no request watches ConfigMaps or Secrets (no other controller of the server does; first in this
    // file, before any kubectl delete waits on a watch).
    const watches = metrics.split('\n').filter((line) => line.startsWith('apiserver_longrunning_requests{') && line.includes('verb="WATCH"') && /resource="(configmaps|secrets)"/.test(line));
    expect(watches.filter((line) => !line.endsWith(' 0'))).toEqual([]);
  });

  it('deletes the dependents of a deleted owner (background, kubectl default)', async () => {
    const owner = await create(configMap('bg-owner'));
    await create(secret('bg-secret', [ownerRef('ConfigMap', 'bg-owner', owner.uid)]));
    await create(configMap('bg-child', [ownerRef('ConfigMap', 'bg-owner', owner.uid)]));
    await kubectl(server, ['delete', 'configmap', 'bg-owner']);
    await until('the secret to be collected', () => read('secret', 'bg-secret'), (meta) => meta === undefined);
    await until('the configmap to be collected', () => read('configmap', 'bg-child'), (meta) => meta === undefined);
  });

  it('a dependent with two owners loses only the reference of the deleted one', async () => {
    const first = await create(configMap('two-a'));
    const second = await create(configMap('two-b'));
    await create(configMap('two-child', [ownerRef('ConfigMap', 'two-a', first.uid), ownerRef('ConfigMap', 'two-b', second.uid)]));
    await kubectl(server, ['delete', 'configmap', 'two-a']);
    const child = await until(
      'the dangling reference to be removed',
      () => read('configmap', 'two-child'),
      (meta) => meta?.ownerReferences?.length === 1,
    );
    expect(child?.ownerReferences?.[0]?.uid).toBe(second.uid);
    await kubectl(server, ['delete', 'configmap', 'two-b']);
    await until('the child to be collected', () => read('configmap', 'two-child'), (meta) => meta === undefined);
  });

  it('foreground: the owner stays until its blocking dependents are gone', async () => {
    const owner = await create(configMap('fg-owner'));
    // The dependent's own finalizer holds it (and so the owner) until the test releases it.
    await create(configMap('fg-child', [ownerRef('ConfigMap', 'fg-owner', owner.uid, 'v1', true)], ['e2e.example.com/hold']));
    await kubectl(server, ['delete', 'configmap', 'fg-owner', '--cascade=foreground', '--wait=false']);
    const waiting = await read('configmap', 'fg-owner');
    expect(waiting?.deletionTimestamp).toBeTruthy();
    expect(waiting?.finalizers).toContain('foregroundDeletion');
    await until('the child to be marked deleted', () => read('configmap', 'fg-child'), (meta) => Boolean(meta?.deletionTimestamp));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await read('configmap', 'fg-owner'))?.finalizers).toContain('foregroundDeletion');
    await kubectl(server, ['patch', 'configmap', 'fg-child', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await until('the child to be gone', () => read('configmap', 'fg-child'), (meta) => meta === undefined);
    await until('the owner to be gone', () => read('configmap', 'fg-owner'), (meta) => meta === undefined);
  });

  it('foreground: two objects owning each other with blocking references are both deleted (no deadlock)', async () => {
    const a = await create(configMap('cycle-a'));
    const b = await create(configMap('cycle-b', [ownerRef('ConfigMap', 'cycle-a', a.uid, 'v1', true)]));
    await kubectl(server, ['patch', 'configmap', 'cycle-a', '--type=merge', '-p', JSON.stringify({ metadata: { ownerReferences: [ownerRef('ConfigMap', 'cycle-b', b.uid, 'v1', true)] } })]);
    // kubectl waits for the object to be gone (as a user's delete does).
    await kubectl(server, ['delete', 'configmap', 'cycle-a', '--cascade=foreground', '--timeout=30s']);
    await until('the other one to be gone', () => read('configmap', 'cycle-b'), (meta) => meta === undefined);
  });

  it('orphan: the owner is gone, the dependents stay without the reference', async () => {
    const owner = await create(configMap('or-owner'));
    await create(secret('or-secret', [ownerRef('ConfigMap', 'or-owner', owner.uid)]));
    await create(configMap('or-child', [ownerRef('ConfigMap', 'or-owner', owner.uid)]));
    await kubectl(server, ['delete', 'configmap', 'or-owner', '--cascade=orphan']);
    await until('the owner to be gone', () => read('configmap', 'or-owner'), (meta) => meta === undefined);
    const orphan = await until('the reference to be removed', () => read('secret', 'or-secret'), (meta) => !meta?.ownerReferences?.length);
    expect(orphan).toBeDefined();
    const child = await read('configmap', 'or-child');
    expect(child).toBeDefined();
    expect(child?.ownerReferences ?? []).toEqual([]);
  });

  it('a custom resource owns a ConfigMap', async () => {
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'parents.gc.example.com' },
      spec: {
        group: 'gc.example.com',
        scope: 'Namespaced',
        names: { plural: 'parents', singular: 'parent', kind: 'Parent' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    }));
    await kubectl(server, ['wait', '--for=condition=Established', 'crd/parents.gc.example.com', '--timeout=30s']);
    const parent = await until(
      'the custom resource to be served',
      () => create({ apiVersion: 'gc.example.com/v1', kind: 'Parent', metadata: { name: 'p', namespace: 'default' } }).catch(() => undefined),
      (meta) => meta !== undefined,
    );
    await create(configMap('cr-child', [ownerRef('Parent', 'p', parent?.uid ?? '', 'gc.example.com/v1', true)]));
    await kubectl(server, ['delete', 'parent', 'p']);
    await until('the child to be collected', () => read('configmap', 'cr-child'), (meta) => meta === undefined);
  });
});
