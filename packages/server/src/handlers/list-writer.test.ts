import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import { writeList } from './list-writer.js';

/** A list of `count` objects as a watch cache holds them: the same item objects on every read. */
function cachedList(count: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMapList',
    metadata: { resourceVersion: '42', continue: 'token', remainingItemCount: 3 } as KubeObject['metadata'],
    items: Array.from({ length: count }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: 'default', resourceVersion: String(i + 1) },
      data: { payload: `${'x'.repeat(1000)}"\\é✓${i}` },
    })),
  };
}

let server: Server | undefined;
let written: Promise<void> | undefined;

/** A node:http server answering every request with `writeList(list)`. */
async function serve(list: () => KubeObject): Promise<string> {
  server = createServer((incoming, response) => {
    written = writeList(incoming, response, 200, list());
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('writeList', () => {
  it('sends the encoded list (JSON-equal, compact, with its Content-Length) and encodes each cached item once', async () => {
    const list = cachedList(300);
    const url = await serve(() => list);
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      for (let read = 0; read < 3; read++) {
        const response = await fetch(url);
        const text = await response.text();
        expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
        expect(text).toBe(JSON.stringify(list));
      }
      const itemEncodes = stringify.mock.calls.filter(([value]) => (value as { kind?: string }).kind === 'ConfigMap');
      expect(itemEncodes).toHaveLength(300);
    } finally {
      stringify.mockRestore();
    }
  });

  it('sends a list of several MB to a slow reader intact (64 KB chunks are reused only once written; large items go as they are)', async () => {
    const list = cachedList(6000);
    (list['items'] as KubeObject[])[10] = { ...(cachedList(1).items as KubeObject[])[0], data: { big: 'y'.repeat(200_000) } } as KubeObject;
    const url = await serve(() => list);
    const text = await new Promise<string>((resolve, reject) => {
      request(url, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          // Read slowly: the writer fills its 1 MB allowance and must wait for drains while reusing chunks.
          response.pause();
          setTimeout(() => response.resume(), 1);
        });
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    expect(text).toBe(JSON.stringify(list));
  });

  it('hands the socket the headers and a list of a few hundred KB in one write, not one per chunk', async () => {
    const list = cachedList(300);
    const writes: number[] = [];
    server = createServer((incoming, response) => {
      const socket = response.socket as unknown as { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
      const [single, vector] = [socket._write.bind(socket), socket._writev.bind(socket)];
      socket._write = (...args) => (writes.push(1), single(...args));
      socket._writev = (...args) => (writes.push((args[0] as unknown[]).length), vector(...args));
      written = writeList(incoming, response, 200, list);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const text = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
    expect(text).toBe(JSON.stringify(list));
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * 64 * 1024);
    // One vectored write of the headers and every chunk.
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBeGreaterThan(4);
  });

  it('writes an empty list and a list without metadata', async () => {
    let list: KubeObject = { ...cachedList(0) };
    const url = await serve(() => list);
    expect(await (await fetch(url)).text()).toBe(JSON.stringify(list));
    list = { items: [] } as unknown as KubeObject;
    expect(await (await fetch(url)).text()).toBe('{"items":[]}');
  });

  it('stops when the client goes away mid-list instead of waiting for a drain forever', async () => {
    const url = await serve(() => cachedList(5000));
    await new Promise<void>((resolve) => {
      const outgoing = request(url, (response) => {
        response.once('data', () => {
          outgoing.destroy();
          resolve();
        });
      });
      outgoing.end();
    });
    await expect(written).resolves.toBeUndefined();
  });
});
