import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject, type WatchEventType } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startServerOn } from './backends.js';
import type { TestServer } from './harness.js';

const namespace = 'watch-list';
const path = `/api/v1/namespaces/${namespace}/configmaps`;
const rvOf = (object: KubeObject | undefined) => Number(object?.metadata.resourceVersion ?? 0);

/** A watch event other than ERROR (an ERROR fails the read). */
interface ObjectEvent {
  type: Exclude<WatchEventType, 'ERROR'>;
  object: KubeObject;
}

/** Creates a ConfigMap over HTTP; resolves once the server has answered (the write has returned). */
async function create(client: RestClient, name: string): Promise<KubeObject> {
  return client.request<KubeObject>({ method: 'POST', path, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } } });
}

/** A watch-list stream (KEP-3157, as client-go's WatchListClient opens it) and the events read from it so far. */
async function openWatchList(client: RestClient, query: Record<string, string | boolean> = {}) {
  const stream = await client.watch({
    path,
    query: { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, timeoutSeconds: 60, ...query },
  });
  const events: ObjectEvent[] = [];
  const iterator = stream[Symbol.asyncIterator]();
  /** Reads until `done` holds for the events read (or the stream ends): the events read. */
  const readUntil = async (done: (events: ObjectEvent[]) => boolean): Promise<ObjectEvent[]> => {
    while (!done(events)) {
      const next = await iterator.next();
      if (next.done) break;
      const { type, object } = next.value;
      if (type === 'ERROR') throw new Error(`watch ERROR event: ${JSON.stringify(object)}`);
      events.push({ type, object: object as KubeObject });
    }
    return events;
  };
  const initialEnd = (read: ObjectEvent[]) =>
    read.findIndex((event) => event.type === 'BOOKMARK' && event.object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true');
  return { events, readUntil, initialEnd, close: () => void iterator.return?.() };
}

describe.each(backends)('watch-list over HTTP on %s (sendInitialEvents)', (backend) => {
  let server: TestServer;
  let client: RestClient;

  beforeAll(async () => {
    server = await startServerOn(backend);
    client = server.client();
    await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('starts with every object whose create has returned, ends the initial state with a bookmark, then streams later writes', async () => {
    const created: KubeObject[] = [];
    // Each round writes a burst, then opens a watch-list at once: the initial state must hold everything
    // whose create has returned, although the watch cache may not have seen the last of those writes yet.
    for (let round = 0; round < 5; round++) {
      created.push(...(await Promise.all(Array.from({ length: 50 }, (_, i) => create(client, `cm-${round}-${i}`)))));
      const watch = await openWatchList(client);
      try {
        const events = await watch.readUntil((read) => watch.initialEnd(read) >= 0);
        const end = watch.initialEnd(events);
        expect(end, `round ${round}: no initial-events-end bookmark in ${JSON.stringify(events.map((e) => e.type))}`).toBeGreaterThanOrEqual(0);
        const initial = events.slice(0, end).filter((event) => event.type !== 'BOOKMARK');
        expect(initial.every((event) => event.type === 'ADDED')).toBe(true);
        expect(initial.map((event) => event.object.metadata.name).sort()).toEqual(created.map((object) => object.metadata.name).sort());
        // Each object in the state it was created in; the bookmark is at least as new as the last write.
        for (const event of initial) {
          const written = created.find((object) => object.metadata.name === event.object.metadata.name);
          expect(rvOf(event.object)).toBe(rvOf(written));
        }
        const bookmark = events[end]?.object;
        expect(rvOf(bookmark)).toBeGreaterThanOrEqual(Math.max(...created.map(rvOf)));

        const later = await create(client, `later-${round}`);
        const after = await watch.readUntil((read) => read.slice(end + 1).some((event) => event.type === 'ADDED'));
        const added = after.slice(end + 1).filter((event) => event.type !== 'BOOKMARK');
        expect(added.map((event) => [event.type, event.object.metadata.name, rvOf(event.object)])).toEqual([['ADDED', `later-${round}`, rvOf(later)]]);
        expect(rvOf(later)).toBeGreaterThan(rvOf(bookmark));
        created.push(later);
      } finally {
        watch.close();
      }
    }
  }, 60_000);

  it('with a resourceVersion, starts from a state at least that new', async () => {
    const written = await create(client, 'from-rv');
    const watch = await openWatchList(client, { resourceVersion: String(rvOf(written)) });
    try {
      const events = await watch.readUntil((read) => watch.initialEnd(read) >= 0);
      const end = watch.initialEnd(events);
      expect(end).toBeGreaterThanOrEqual(0);
      // Nothing is written meanwhile: the initial state is the whole collection, as a LIST shows it.
      const listed = await client.request<{ items: KubeObject[] }>({ method: 'GET', path });
      const names = (objects: KubeObject[]) => objects.map((object) => object.metadata.name).sort();
      expect(names(events.slice(0, end).map((event) => event.object))).toEqual(names(listed.items));
      expect(names(listed.items)).toContain('from-rv');
      expect(rvOf(events[end]?.object)).toBeGreaterThanOrEqual(rvOf(written));
    } finally {
      watch.close();
    }
  });
});
