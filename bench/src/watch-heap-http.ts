import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { row, usedMemory, type BenchRow } from './harness.js';
import { benchToken, startServer } from './http-bench.js';
import { WatcherProcess, rawWatchServer } from './watch-fanout.js';
import { noConfigMapWatchers } from './watch-heap-h2.js';

/**
 * Heap per idle HTTPS watch (issue 17): `watchers` idle watches (bookmarks allowed, one TLS connection
 * each, opened by a child process) on an in-process kube-apiserver-lite (memory storage, watch cache),
 * beside a bare node:https server holding as many idle chunked responses: the control pays the TLS socket,
 * HTTP parser and ServerResponse, so subject - control is what the apiserver's watch holds. heapUsed +
 * external after forced GCs, control measured first, each on a fresh set of connections, each after a
 * warm-up round (a tenth of the watches, opened and closed) as the HTTP/2 rows.
 */
export async function watchHeapHttpRows(options: { watchers: number }): Promise<BenchRow[]> {
  const { watchers } = options;
  const directory = mkdtempSync(join(tmpdir(), 'kapi-watch-heap-'));
  const server = await startServer(directory, ['--storage=memory']);
  try {
    const path = '/api/v1/namespaces/default/configmaps';
    await server.client.request({ method: 'POST', path, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'idle' }, data: { a: 'b' } } });
    const tls = { key: readFileSync(join(directory, 'apiserver.key'), 'utf8'), cert: readFileSync(join(directory, 'apiserver.crt'), 'utf8') };
    const timeoutMs = 120_000 + 30 * watchers;

    /** Opens and closes a tenth of the watches (at least 100) on `url`; `settled` waits until the server let them go. */
    const warmUp = async (url: string, headers: Record<string, string>, settled: () => Promise<void>) => {
      const count = Math.max(100, Math.ceil(watchers / 10));
      const warm = new WatcherProcess({ url, ca: server.ca, headers, watchers: count });
      try {
        await warm.ready(timeoutMs, count);
      } finally {
        await warm.close();
      }
      await settled();
    };

    const raw = await rawWatchServer(tls);
    // The bare server keeps every response it answered, closed ones too: nothing of the warm-up is freed later.
    await warmUp(raw.url, {}, async () => undefined);
    const rawClients = new WatcherProcess({ url: raw.url, ca: server.ca, headers: {}, watchers });
    let control: number;
    try {
      const before = await usedMemory();
      await rawClients.ready(timeoutMs, watchers);
      control = ((await usedMemory()) - before) / watchers;
    } finally {
      await rawClients.close();
      await raw.close();
    }

    const url = `${server.running.url}${path}?watch=true&allowWatchBookmarks=true`;
    const headers = { authorization: `Bearer ${benchToken}` };
    await warmUp(url, headers, () => noConfigMapWatchers(server.client));
    const clients = new WatcherProcess({ url, ca: server.ca, headers, watchers });
    let subject: number;
    try {
      const before = await usedMemory();
      await clients.ready(timeoutMs, watchers);
      subject = ((await usedMemory()) - before) / watchers;
    } finally {
      await clients.close();
    }
    return [
      {
        ...row(`heap per idle HTTPS watch (${watchers} watches, HTTP/1.1)`, 'kube-apiserver-lite watch', subject, 'bare node:https, one idle chunked response per socket', control, 'bytes (lower is better)', '<= 4 KB'),
        notes: `${(subject / 1024).toFixed(1)} KB per watch, ${((subject - control) / 1024).toFixed(1)} KB beyond the control's ${(control / 1024).toFixed(1)} KB; heapUsed + external after forced GC, in process (watchers in a child process; the server runs from the built packages)`,
      },
    ];
  } finally {
    server.client.close();
    await server.running.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
