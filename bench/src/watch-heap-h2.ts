import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureServer, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Clients } from './h2-bench.js';
import { row, sampleObject, usedMemory, type BenchRow } from './harness.js';
import { benchToken, startServer } from './http-bench.js';

const path = '/api/v1/namespaces/default/configmaps';
/** Upstream's per-stream upload buffer, as the apiserver's secure port sets it. */
const streamWindow = 256 * 1024;

/**
 * A bare node:http2 secure server with the apiserver's session settings, holding every stream open with
 * its response headers sent. Streams are answered with the core API (`stream.respond`), as the apiserver
 * answers watch streams since it stopped using node's compatibility request and response for them.
 */
export async function rawH2WatchServer(tls: { key: string; cert: string }, streamsPerSession: number) {
  const streams: ServerHttp2Stream[] = [];
  const server = createSecureServer({
    ...tls,
    allowHTTP1: true,
    settings: { maxConcurrentStreams: streamsPerSession, initialWindowSize: streamWindow },
    maxSessionMemory: Math.max(10, Math.ceil((streamWindow * streamsPerSession) / (1024 * 1024))),
  });
  server.on('stream', (stream) => {
    stream.on('error', () => undefined);
    stream.respond({ ':status': 200, 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
    streams.push(stream);
  });
  server.on('session', (session) => session.setLocalWindowSize(streamWindow * streamsPerSession));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Writes `line` once to every held stream. */
    broadcast(line: Buffer): void {
      for (const stream of streams) stream.write(line);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.close();
        server.close(() => resolve());
      }),
  };
}

/** Opens `watchers` h2 streams to `origin + watchPath`; fails unless every one answered 200. */
async function openStreams(spec: { origin: string; watchPath: string; ca: string; watchers: number; streamsPerSession: number }, timeoutMs: number): Promise<{ clients: Clients; sessions: number }> {
  const clients = new Clients({ mode: 'watch', protocol: 'h2', origin: spec.origin, path: spec.watchPath, ca: spec.ca, token: benchToken, count: spec.watchers, streamsPerSession: spec.streamsPerSession });
  try {
    const ready = await clients.next('ready', timeoutMs);
    if (Number(ready.open) !== spec.watchers) throw new Error(`${String(ready.open)} of ${spec.watchers} h2 streams opened (${String(ready.failed)} failed)`);
    return { clients, sessions: Number(ready.sessions) };
  } catch (error) {
    await clients.close();
    throw error;
  }
}

/**
 * Opens and closes a tenth of `spec.watchers` streams (at least 100) before a measured round, so that what
 * a server builds once (compiled code, object shapes, per-route counters) is not charged to the streams
 * measured; `settled` resolves once the server has let them go (the measured round's baseline must not
 * hold streams that are freed during it).
 */
async function warmUp(spec: { origin: string; watchPath: string; ca: string; watchers: number; streamsPerSession: number }, settled: () => Promise<void>): Promise<void> {
  const { clients } = await openStreams({ ...spec, watchers: Math.max(100, Math.ceil(spec.watchers / 10)) }, 120_000);
  await clients.close();
  await settled();
}

/** Resolves once the server's ConfigMap watchers gauge is 0 (the warm-up's watches ended); fails after 30 s. */
export async function noConfigMapWatchers(client: { raw(request: { method: string; path: string }): Promise<{ body: Buffer }> }): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const metrics = (await client.raw({ method: 'GET', path: '/metrics' })).body.toString('utf8');
    if (Number(/^apiserver_registered_watchers\{group="",version="v1",kind="ConfigMap"\} (\d+)$/m.exec(metrics)?.[1] ?? 0) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the warm-up watches were still open 30 s after their client left');
}

/**
 * Heap + external per stream (after forced GC, in this process) of `watchers` streams to `origin +
 * watchPath` opened by a child process, `streamsPerSession` to a TLS connection; the streams are closed
 * once measured.
 */
export async function h2HeapPerStream(spec: { origin: string; watchPath: string; ca: string; watchers: number; streamsPerSession: number }): Promise<number> {
  const before = await usedMemory();
  const { clients } = await openStreams(spec, 120_000 + 30 * spec.watchers);
  try {
    return ((await usedMemory()) - before) / spec.watchers;
  } finally {
    await clients.close();
  }
}

/**
 * Deliveries per second of one line to each of `watchers` streams, from `send()` to the last arrival
 * (lines that came before, such as bookmarks, are not counted).
 */
async function fanOutOnce(clients: Clients, watchers: number, send: () => Promise<void> | void): Promise<number> {
  const stats = clients.next('stats', 10_000);
  clients.send({ type: 'stats' });
  const lines = Number((await stats).lines) + watchers;
  const done = clients.next('done', 60_000);
  clients.send({ type: 'expect', lines });
  const started = Date.now();
  await send();
  const delivered = await done;
  return watchers / (Math.max(Number(delivered.lastAt) - started, 1) / 1000);
}

/**
 * Idle watches over HTTP/2 (issue 17): `watchers` watches of one namespace's ConfigMaps (bookmarks allowed,
 * from the current resourceVersion) as streams multiplexed `streamsPerSession` to a TLS connection (the
 * server started with `--http2-max-streams-per-connection` = `streamsPerSession`), opened by a child
 * process, on an in-process kube-apiserver-lite (memory storage, watch cache); beside a bare node:http2
 * server holding as many streams with their response headers sent. Rows: heap + external per watch after
 * forced GC (control measured first, each on fresh connections), and the fan-out of one 2 KB event to
 * every stream, beside the bare server writing the same line to each. Each server serves a warm-up round
 * first (see {@link warmUp}).
 */
export async function watchHeapH2Rows(options: { watchers: number; streamsPerSession: number }): Promise<BenchRow[]> {
  const { watchers, streamsPerSession } = options;
  const directory = mkdtempSync(join(tmpdir(), 'kapi-watch-heap-h2-'));
  const server = await startServer(directory, ['--storage=memory', `--http2-max-streams-per-connection=${streamsPerSession}`]);
  try {
    const created = await server.client.request<{ metadata: { resourceVersion: string } }>({ method: 'POST', path, body: { ...sampleObject('idle'), metadata: { name: 'idle' } } });
    const tls = { key: readFileSync(join(directory, 'apiserver.key'), 'utf8'), cert: readFileSync(join(directory, 'apiserver.crt'), 'utf8') };
    const timeoutMs = 120_000 + 30 * watchers;
    const layout = { ca: server.ca, watchers, streamsPerSession };

    const raw = await rawH2WatchServer(tls, streamsPerSession);
    let control: number;
    let controlRate: number;
    try {
      // The bare server keeps every stream it answered, closed ones too: nothing of the warm-up is freed later.
      await warmUp({ ...layout, origin: raw.url, watchPath: path }, async () => undefined);
      const before = await usedMemory();
      const { clients } = await openStreams({ ...layout, origin: raw.url, watchPath: path }, timeoutMs);
      try {
        control = ((await usedMemory()) - before) / watchers;
        const line = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { ...sampleObject('fan-out'), metadata: { name: 'fan-out', namespace: 'default', resourceVersion: '1000' } } })}\n`);
        controlRate = await fanOutOnce(clients, watchers, () => raw.broadcast(line));
      } finally {
        await clients.close();
      }
    } finally {
      await raw.close();
    }

    const watchPath = `${path}?watch=true&allowWatchBookmarks=true&resourceVersion=${created.metadata.resourceVersion}`;
    await warmUp({ ...layout, origin: server.running.url, watchPath }, () => noConfigMapWatchers(server.client));
    const before = await usedMemory();
    const { clients, sessions } = await openStreams({ ...layout, origin: server.running.url, watchPath }, timeoutMs);
    let subject: number;
    let subjectRate: number;
    try {
      subject = ((await usedMemory()) - before) / watchers;
      subjectRate = await fanOutOnce(clients, watchers, async () => {
        await server.client.request({ method: 'POST', path, body: { ...sampleObject('fan-out'), metadata: { name: 'fan-out' } } });
      });
    } finally {
      await clients.close();
    }
    const layoutText = `${sessions} TLS connections x ${streamsPerSession} streams`;
    return [
      {
        ...row(`heap per idle watch over HTTP/2 (${watchers} watches, ${layoutText})`, 'kube-apiserver-lite watch', subject, 'bare node:http2 (core API), one open stream with headers sent', control, 'bytes (lower is better)', '<= 4 KB'),
        notes: `${(subject / 1024).toFixed(1)} KB per watch, ${((subject - control) / 1024).toFixed(1)} KB beyond the control's ${(control / 1024).toFixed(1)} KB; heapUsed + external after forced GC, in process (streams opened by a child process; the server runs from the built packages)`,
      },
      {
        ...row(`fan-out of one 2 KB event to ${watchers} idle watches over HTTP/2 (${layoutText})`, 'kube-apiserver-lite (POST to last delivery)', subjectRate, 'bare node:http2, same line per stream', controlRate, 'deliveries/s'),
        notes: 'one event, timed to its last delivery (Date.now in the client process, ms resolution), one run each',
      },
    ];
  } finally {
    server.client.close();
    await server.running.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
