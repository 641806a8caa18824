import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StatusError } from '@kapi/apimachinery';
import { WatchChannel, type Interface, type StorageWatchEvent, type Watch } from '@kapi/storage';
import { startTestServer, widget, widgetsPath, type TestServer } from '../test-support/test-server.js';

let api: TestServer;

beforeEach(async () => {
  api = await startTestServer();
});
afterEach(async () => {
  await api.close();
});

interface Line {
  type: string;
  object: {
    apiVersion?: string;
    kind?: string;
    metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
    spec?: unknown;
  };
}

/** Opens a watch and returns a reader of its event lines. */
async function openWatch(path: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(`${api.url}${path}`, { signal: controller.signal, headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(): Promise<Line | undefined> {
      for (;;) {
        const newline = buffer.indexOf('\n');
        if (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          return JSON.parse(line) as Line;
        }
        const chunk = await reader.read();
        if (chunk.done) return undefined;
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}

describe('watch', () => {
  it('streams ADDED/MODIFIED/DELETED converted to the requested version', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    const watch = await openWatch(`${widgetsPath('default', 'v1beta1')}?watch=true`);
    const initial = await watch.next();
    expect(initial).toMatchObject({
      type: 'ADDED',
      object: { apiVersion: 'example.com/v1beta1', kind: 'Widget', spec: { sizeText: '1' } },
    });
    expect(await (await fetch(`${api.url}/metrics`)).text()).toContain(
      'apiserver_registered_watchers{group="example.com",version="v1beta1",kind="Widget"} 1',
    );
    await api.call(
      'PATCH',
      `${widgetsPath()}/a`,
      { spec: { size: 2 } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(await watch.next()).toMatchObject({ type: 'MODIFIED', object: { spec: { sizeText: '2' } } });
    await api.call('DELETE', `${widgetsPath()}/a`);
    expect(await watch.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'a' } } });
    watch.close();
  });

  it('starts from a resourceVersion, filters by selectors and serves the legacy /watch/ path for one name', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    const watch = await openWatch(
      `/apis/example.com/v1/watch/namespaces/default/widgets/b?resourceVersion=1`,
    );
    await api.call('POST', widgetsPath(), widget('c'));
    await api.call('POST', widgetsPath(), widget('b'));
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });
    watch.close();
    const labelled = await openWatch(`${widgetsPath()}?watch=1&resourceVersion=3&labelSelector=app%3Dx`);
    await api.call('POST', widgetsPath(), widget('d'));
    await api.call('POST', widgetsPath(), { ...widget('e'), metadata: { name: 'e', labels: { app: 'x' } } });
    expect(await labelled.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'e' } } });
    labelled.close();
  });

  it('sends initial events with an annotated, typed bookmark for watch-list', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    const watch = await openWatch(
      `${widgetsPath()}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
    );
    expect(await watch.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    expect(await watch.next()).toMatchObject({
      type: 'BOOKMARK',
      object: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: {
          resourceVersion: String(await api.storage.revision()),
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      },
    });
    watch.close();
    const invalid = await api.call(
      'GET',
      `${widgetsPath()}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`,
    );
    expect(invalid.status).toBe(422);
    expect(String(invalid.body['message'])).toContain(
      'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  });

  it('forwards progress bookmarks typed with apiVersion/kind only when allowWatchBookmarks is set', async () => {
    await api.close();
    api = await startTestServer({ progressNotifyIntervalMs: 30 });
    const revision = String(await api.storage.revision());
    const watch = await openWatch(
      `${widgetsPath('default', 'v1beta1')}?watch=1&allowWatchBookmarks=true&resourceVersion=${revision}`,
    );
    expect(await watch.next()).toMatchObject({
      type: 'BOOKMARK',
      object: { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { resourceVersion: revision } },
    });
    watch.close();
    const plain = await openWatch(`${widgetsPath()}?watch=1&resourceVersion=${revision}&timeoutSeconds=1`);
    expect(await plain.next()).toBeUndefined();
  });

  it('renders events as one-row Tables when kubectl asks for them', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    const watch = await openWatch(`${widgetsPath()}?watch=1`, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    const event = (await watch.next()) as unknown as {
      type: string;
      object: { kind: string; rows: Array<{ cells: unknown[] }> };
    };
    expect(event.type).toBe('ADDED');
    expect(event.object.kind).toBe('Table');
    expect(event.object.rows[0]?.cells.slice(0, 2)).toEqual(['a', 1]);
    watch.close();
  });

  it('reports a compacted resourceVersion as 410 Expired', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    await api.call(
      'PATCH',
      `${widgetsPath()}/a`,
      { spec: { size: 2 } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    const revision = await api.storage.revision();
    await api.storage.backend.compact(revision);
    const response = await fetch(`${api.url}${widgetsPath()}?watch=1&resourceVersion=1`);
    const text = await response.text();
    const status =
      response.status === 200
        ? (JSON.parse(text.split('\n')[0] ?? '') as { type: string; object: unknown }).object
        : JSON.parse(text);
    expect(status).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(api.storage.activeWatches).toBe(0);
  });

  it('answers a watch whose storage watch fails after the stream began waiting with that Status', async () => {
    // As the watch cache does for a resourceVersion it has not reached: it waits, then gives up with 504.
    const failing = storageWatching(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw StatusError.tooLargeResourceVersion(100, 5);
    });
    await api.close();
    api = await startTestServer({ storage: () => failing });
    const response = await fetch(`${api.url}${widgetsPath()}?watch=1&resourceVersion=100`, { signal: AbortSignal.timeout(5000) });
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ kind: 'Status', code: 504, reason: 'Timeout', message: expect.stringContaining('Too large resource version') });
  });

  it('serializes an event object shared by several watchers once per apiVersion', async () => {
    const shared: StorageWatchEvent = {
      type: 'ADDED',
      object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 's', resourceVersion: '5' } },
    };
    // A stand-in for a watch cache: every watcher gets the very same event object.
    const cacheLike = storageWatching(async () => ({
      stop() {},
      done: Promise.resolve(),
      async *[Symbol.asyncIterator]() {
        yield shared;
      },
    }));
    await api.close();
    api = await startTestServer({ storage: () => cacheLike });
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      for (let index = 0; index < 3; index += 1) {
        const response = await fetch(`${api.url}${widgetsPath('default', 'v1beta1')}?watch=1`);
        expect(JSON.parse((await response.text()).trim())).toMatchObject({
          type: 'ADDED',
          object: { apiVersion: 'example.com/v1beta1', metadata: { name: 's' } },
        });
      }
      // The event line or the object alone (spliced into the line) is encoded, once.
      type Named = { metadata?: { name?: string } };
      const serializations = stringify.mock.calls.filter(([value]) => {
        const candidate = value as (Named & { object?: Named }) | undefined;
        return (candidate?.object ?? candidate)?.metadata?.name === 's';
      });
      expect(serializations).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
  });

  it('writes pushed events at once, queues them while the client is slow and resumes in order after drain', async () => {
    const channel = new WatchChannel();
    const deliverTo = vi.spyOn(channel, 'deliverTo');
    const pushing = storageWatching(async () => channel);
    const event = (name: string, size: number): StorageWatchEvent => ({
      type: 'ADDED',
      object: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name, resourceVersion: '5', annotations: { payload: 'x'.repeat(size) } },
      },
    });
    await api.close();
    api = await startTestServer({ storage: () => pushing });
    const watch = await openWatch(`${widgetsPath()}?watch=1`);
    await vi.waitFor(() => expect(channel.receiving).toBe(true));
    channel.push(event('first', 10));
    expect((await watch.next())?.object.metadata.name).toBe('first');
    // 64 KiB lines, written while the client reads nothing, until the connection asks the handler to
    // wait (the socket and the kernel's buffers are full); the lines after that queue in the watch.
    const names: string[] = [];
    while (channel.receiving && names.length < 10_000) {
      names.push(`w${names.length}`);
      channel.push(event(names.at(-1)!, 65_536));
    }
    expect(channel.receiving).toBe(false);
    for (let index = 0; index < 20; index++) {
      names.push(`q${index}`);
      channel.push(event(names.at(-1)!, 65_536));
    }
    expect(channel.pending).toBe(20);
    const received: string[] = [];
    for (const _ of names) received.push((await watch.next())?.object.metadata.name ?? '');
    expect(received).toEqual(names);
    await vi.waitFor(() => expect(channel.receiving).toBe(true));
    expect(deliverTo.mock.calls.length).toBeGreaterThan(2);
    channel.push(event('last', 10));
    expect((await watch.next())?.object.metadata.name).toBe('last');
    channel.close();
    expect(await watch.next()).toBeUndefined();
  });

  it('sends each line as one well-formed chunk on HTTP/1.1 and as plain lines on HTTP/1.0', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    await api.call('POST', widgetsPath(), widget('b'));
    for (const version of ['1.1', '1.0']) {
      const raw = await rawExchange(
        new URL(api.url),
        `GET ${widgetsPath()}?watch=1&timeoutSeconds=1 HTTP/${version}\r\nHost: test\r\nConnection: close\r\n\r\n`,
      );
      const [head = '', body = ''] = raw.split(/\r\n\r\n(.*)/s);
      expect(head).toMatch(/^HTTP\/1.1 200/);
      const lines = (version === '1.1' ? dechunk(body) : body).split('\n').filter(Boolean);
      expect(lines.map((line) => (JSON.parse(line) as Line).object.metadata.name)).toEqual(['a', 'b']);
      if (version === '1.1') {
        expect(head).toMatch(/transfer-encoding: chunked/i);
        // One chunk per line, each exactly the line, then the last chunk.
        expect(body).toBe(`${lines.map((line) => `${(Buffer.byteLength(line) + 1).toString(16)}\r\n${line}\n\r\n`).join('')}0\r\n\r\n`);
      } else {
        expect(head).not.toMatch(/transfer-encoding/i);
      }
    }
  });

  it('ends the stream at timeoutSeconds and on shutdown, stopping the storage watch', async () => {
    const timed = await openWatch(`${widgetsPath()}?watch=1&timeoutSeconds=1`);
    expect(await timed.next()).toBeUndefined();
    expect(api.storage.activeWatches).toBe(0);
    const open = await openWatch(`${widgetsPath()}?watch=1`);
    await api.call('POST', widgetsPath(), widget('a'));
    expect(await open.next()).toMatchObject({ type: 'ADDED' });
    expect(api.storage.activeWatches).toBe(1);
    await api.server.shutdown();
    expect(await open.next()).toBeUndefined();
    expect(api.storage.activeWatches).toBe(0);
  });

  it('stops the storage watch when the client goes away', async () => {
    const watch = await openWatch(`${widgetsPath()}?watch=1`);
    await api.call('POST', widgetsPath(), widget('a'));
    await watch.next();
    watch.close();
    for (let attempt = 0; attempt < 50 && api.storage.activeWatches > 0; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(api.storage.activeWatches).toBe(0);
  });
});

/** A storage whose only working call is `watch`. */
function storageWatching(watch: () => Promise<Watch>): Interface {
  const unused = () => Promise.reject(new Error('not used'));
  return { create: unused, get: unused, getList: unused, guaranteedUpdate: unused, delete: unused, count: unused, watch };
}

/** Sends `request` on a new TCP connection and returns everything the server wrote until it closed. */
function rawExchange(url: URL, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** The payload of a chunked body (strict: throws on a malformed chunk). */
function dechunk(body: string): string {
  let payload = '';
  let rest = body;
  for (;;) {
    const match = /^([0-9a-f]+)\r\n/.exec(rest);
    if (!match) throw new Error(`malformed chunk at ${JSON.stringify(rest.slice(0, 20))}`);
    const size = Number.parseInt(match[1]!, 16);
    const data = Buffer.from(rest.slice(match[0].length), 'utf8');
    if (size === 0) return payload;
    payload += data.subarray(0, size).toString('utf8');
    rest = data.subarray(size).toString('utf8');
    if (!rest.startsWith('\r\n')) throw new Error('chunk not followed by CRLF');
    rest = rest.slice(2);
  }
}
