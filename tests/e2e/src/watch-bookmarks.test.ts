import type { WatchEvent } from '@kapi/apimachinery';
import { RestClient, loadKubeconfig } from '@kapi/client';
import { afterEach, describe, expect, it } from 'vitest';
import { backends, startServerOn } from './backends.js';
import type { TestServer } from './harness.js';

const namespace = 'bookmarks';

/** An event and when it arrived (ms after the read started). */
interface Arrival {
  event: WatchEvent;
  atMs: number;
}

/** Reads a watch stream to its end into `into` (a broken stream ends the read as well). */
async function readAll(stream: AsyncIterable<WatchEvent>, into: Arrival[] = []): Promise<Arrival[]> {
  const started = Date.now();
  try {
    for await (const event of stream) into.push({ event, atMs: Date.now() - started });
  } catch {
    // The events read so far are the answer.
  }
  return into;
}

const rvOf = (event: WatchEvent | undefined) => Number(event?.object.metadata.resourceVersion ?? 0);

async function createConfigMap(client: RestClient, name: string): Promise<number> {
  const created = await client.request<{ metadata: { resourceVersion: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/configmaps`,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } },
  });
  return Number(created.metadata.resourceVersion);
}

describe.each(backends)('watch bookmarks over HTTP on %s (KEP-1904)', (backend) => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('ends a bookmark watch on an idle resource with a BOOKMARK at the latest write on SIGTERM', async () => {
    server = await startServerOn(backend);
    // Not server.client(): stop() closes those, and this watch must outlive the SIGTERM.
    const client = new RestClient(loadKubeconfig(server.kubeconfig));
    try {
      await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } });
      const list = await client.request<{ metadata: { resourceVersion: string } }>({
        method: 'GET',
        path: `/api/v1/namespaces/${namespace}/secrets`,
      });
      const stream = await client.watch({
        path: `/api/v1/namespaces/${namespace}/secrets`,
        query: { allowWatchBookmarks: true, resourceVersion: list.metadata.resourceVersion, timeoutSeconds: 120 },
      });
      const arrivals: Arrival[] = [];
      const ended = readAll(stream, arrivals);
      let lastWrite = 0;
      for (let i = 0; i < 5; i++) lastWrite = await createConfigMap(client, `write-${i}`);
      // Progress bookmarks the writes may cause arrive before the signal, so what follows it is the shutdown's.
      for (let waited = 0; waited < 3000 && !arrivals.some(({ event }) => rvOf(event) >= lastWrite); waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const beforeSignal = arrivals.length;

      server.process.kill('SIGTERM');
      const afterSignal = (await ended).slice(beforeSignal).map(({ event }) => event);

      const last = afterSignal.at(-1);
      expect(last?.type).toBe('BOOKMARK');
      expect(rvOf(last)).toBeGreaterThanOrEqual(lastWrite);
      expect(arrivals.filter(({ event }) => event.type !== 'BOOKMARK')).toEqual([]);
    } finally {
      client.close();
    }
  });
});

// On sqlite only: etcd's own progress notifications (every second in these tests) reach bookmark watchers
// too, so there a late bookmark would arrive whether or not the deadline reached the cache.
describe('the pre-deadline bookmark over HTTP', () => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('sends a BOOKMARK 2 s before the watch timeoutSeconds ends it', async () => {
    // No identity leases: nothing else writes, so no progress bookmark follows the watch's own events.
    server = await startServerOn('sqlite', { args: ['--storage-version-api=false'] });
    const client = server.client();
    await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } });
    const start = await createConfigMap(client, 'first');
    const stream = await client.watch({
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      query: { allowWatchBookmarks: true, resourceVersion: start, timeoutSeconds: 6 },
    });
    const ended = readAll(stream);
    const second = await createConfigMap(client, 'second');

    const seen = await ended;

    expect(seen.map(({ event }) => event.type)).toContain('ADDED');
    // The bookmark timer ticks every 1-1.25 s: the pre-deadline bookmark comes 2-3.25 s before the end,
    // long after any progress bookmark the write itself causes.
    const late = seen.filter(({ event, atMs }) => event.type === 'BOOKMARK' && atMs >= 2500);
    expect(late.length).toBeGreaterThan(0);
    expect(rvOf(late.at(-1)?.event)).toBeGreaterThanOrEqual(second);
  });
});
