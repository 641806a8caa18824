import { afterEach, describe, expect, it } from 'vitest';
import { Scheme } from '@kapi/apimachinery';
import { GenericAPIServerConfig, ServerMetrics, type GenericAPIServer } from '@kapi/server';
import { Store, type Interface } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { Cacher } from '@kapi/watch-cache';
import { builtInKinds, builtInResources } from './resources/index.js';
import { STORAGE_READINESS_HOOK, storageReadinessHook } from './storage-readiness.js';

/** The backend reads a watch cache's initialisation makes (a list, or a replay of a never-compacted log). */
const gatedReads = new Set<PropertyKey>(['get', 'range', 'currentRevision', 'compactedRevision']);

/** A MemoryBackend whose reads wait until `open()`: the watch cache over it cannot initialize before. */
function gatedBackend(): { kv: MemoryBackend; open: () => void } {
  const backend = new MemoryBackend();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const kv = new Proxy(backend, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (!gatedReads.has(property)) return method;
      return async (...args: unknown[]) => {
        await gate;
        return method(...args);
      };
    },
  });
  return { kv, open };
}

let server: GenericAPIServer | undefined;
let openGate: (() => void) | undefined;
afterEach(async () => {
  openGate?.();
  await server?.shutdown();
  server = undefined;
});

async function startServer(timeoutMs: number): Promise<{ url: string; open: () => void; logs: string[] }> {
  const { kv, open } = gatedBackend();
  openGate = open;
  const scheme = new Scheme();
  for (const kind of builtInKinds) scheme.addKind(kind);
  const storages: Interface[] = [];
  const logs: string[] = [];
  server = new GenericAPIServerConfig({
    scheme,
    storage: ({ codec, prefix }) => {
      const cacher = new Cacher({ storage: new Store({ kv, codec }), resourcePrefix: prefix });
      void cacher.start();
      storages.push(cacher);
      return cacher;
    },
    metrics: new ServerMetrics({ defaultMetrics: false }),
  })
    .complete()
    .new();
  const configMaps = builtInResources.find((definition) => definition.resource === 'configmaps');
  if (!configMaps) throw new Error('configmaps are not defined');
  server.installResource(configMaps);
  server.addPostStartHook(STORAGE_READINESS_HOOK, storageReadinessHook(() => storages, timeoutMs, (line) => logs.push(line)));
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  return { url, open, logs };
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

async function eventually(probe: () => Promise<boolean>, deadline = Date.now() + 10_000): Promise<void> {
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('storage-readiness post-start hook (readyz vs the watch cache)', () => {
  it('readyz fails naming poststarthook/storage-readiness while the cache answers 429, and passes once it is ready', async () => {
    const { url, open } = await startServer(60_000);
    const list = `${url}/api/v1/namespaces/default/configmaps`;

    const unready = await get(list);
    expect(unready.status).toBe(429);
    expect(JSON.parse(unready.text)).toMatchObject({ reason: 'TooManyRequests', message: 'storage is (re)initializing' });
    const readyz = await get(`${url}/readyz?verbose`);
    expect(readyz.status).toBe(500);
    expect(readyz.text).toContain('[-]poststarthook/storage-readiness failed: reason withheld\n');
    expect(readyz.text).toContain('readyz check failed');
    const single = await get(`${url}/readyz/poststarthook/storage-readiness`);
    expect(single).toEqual({ status: 500, text: 'internal server error: not finished\n' });

    open();
    await eventually(async () => (await get(`${url}/readyz`)).status === 200);
    expect((await get(`${url}/readyz?verbose`)).text).toContain('[+]poststarthook/storage-readiness ok\n');
    expect((await get(list)).status).toBe(200);
  });

  it('past --storage-initialization-timeout readyz passes anyway and the wait is logged, as upstream', async () => {
    const { url, logs } = await startServer(300);
    await eventually(async () => (await get(`${url}/readyz`)).status === 200);
    expect((await get(`${url}/api/v1/namespaces/default/configmaps`)).status).toBe(429);
    expect(logs).toEqual(['deadline exceeded while waiting for storage readiness (1 watch caches not ready), ignoring']);
  });
});
