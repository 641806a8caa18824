import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, row, usedMemory, type BenchRow } from './harness.js';
import { bareServer, benchToken, startServer } from './http-bench.js';
import { coldStart, compactScaleDirectory, scaleObject, seedScaleDirectories } from './scale-seed.js';
import { WatcherProcess, rawWatchServer } from './watch-fanout.js';
import { h2HeapPerStream, rawH2WatchServer } from './watch-heap-h2.js';

/** The streams per HTTP/2 connection the server advertises by default (Go's, as upstream). */
const h2StreamsPerConnection = 250;

const namespaces = 100;

interface Endpoint {
  url: string;
  ca: string;
  agent: Agent;
}

/** GETs `path`; resolves with the status and body. */
function get(endpoint: Endpoint, path: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const call = request(`${endpoint.url}${path}`, { agent: endpoint.agent, headers: { authorization: `Bearer ${benchToken}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end();
  });
}

async function getOk(endpoint: Endpoint, path: string): Promise<Buffer> {
  const { status, body } = await get(endpoint, path);
  if (status !== 200) throw new Error(`GET ${path}: ${status} ${body.toString('utf8').slice(0, 300)}`);
  return body;
}

/** Sequential GETs of `paths(i)`, `samples` times; the p99 latency in ms. */
async function p99(endpoint: Endpoint, samples: number, path: (i: number) => string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await getOk(endpoint, path(i));
    times.push(performance.now() - started);
  }
  return percentile(times, 99);
}

/** Walks every page (limit 500) of the ConfigMaps; returns objects/s, failing unless all `count` came. */
async function pagedList(endpoint: Endpoint, firstQuery: string, count: number): Promise<number> {
  const started = performance.now();
  let token: string | undefined;
  let listed = 0;
  do {
    const query = token ? `limit=500&continue=${encodeURIComponent(token)}` : `limit=500${firstQuery}`;
    const page = JSON.parse((await getOk(endpoint, `/api/v1/configmaps?${query}`)).toString('utf8')) as { items: unknown[]; metadata: { continue?: string } };
    listed += page.items.length;
    token = page.metadata.continue;
  } while (token);
  if (listed < count) throw new Error(`paged LIST returned ${listed} of ${count} ConfigMaps`);
  return listed / ((performance.now() - started) / 1000);
}

/**
 * p99 of sequential namespace LISTs (`path(i)`, each expected to hold `items` objects) on one keep-alive
 * connection, beside a bare node:https server answering the same bytes over the same TLS. The issue's
 * target (p99 <= 5 ms) is for a LIST of 100 objects: rows of more carry no target, only the ratio.
 */
async function namespaceListP99(
  endpoint: Endpoint,
  tls: { key: string; cert: string },
  ca: string,
  samples: number,
  what: string,
  items: number,
  path: (i: number) => string,
): Promise<BenchRow> {
  const sample = await getOk(endpoint, path(0));
  const listed = (JSON.parse(sample.toString('utf8')) as { items: unknown[] }).items.length;
  if (listed !== items) throw new Error(`namespace LIST ${path(0)} returned ${listed} items, expected ${items}`);
  const bare = await bareServer(sample, tls);
  const bareEndpoint: Endpoint = { url: bare.url, ca, agent: new Agent({ ca, keepAlive: true, maxSockets: 1 }) };
  try {
    // Warm-up: one LIST of every namespace, so that each listed object's bytes exist (an object is
    // encoded once, by the first LIST, GET or watch that sends it, then shared); the rows measure steady
    // state, as the bare server's prebuilt body does.
    await p99(endpoint, namespaces, path);
    await p99(bareEndpoint, namespaces, path);
    const subjectP99 = await p99(endpoint, samples, path);
    const bareP99 = await p99(bareEndpoint, samples, path);
    return {
      ...row(`namespace LIST (${what}) p99 over HTTPS, 1,000 watches open`, 'kube-apiserver-lite', subjectP99, 'bare node:https, same bytes', bareP99, 'ms (lower is better)', items <= 100 ? '<= 5 ms' : undefined),
      notes: `${samples} sequential GETs on one keep-alive connection, ${sample.length} B each, after one warm-up LIST of each of the ${namespaces} namespaces`,
    };
  } finally {
    bareEndpoint.agent.destroy();
    await bare.close();
  }
}

/** startServer, then /readyz 200 (startServer gives up waiting after about 20 s). */
async function startReadyServer(dataDir: string): Promise<Awaited<ReturnType<typeof startServer>>> {
  const server = await startServer(dataDir, ['--storage=sqlite']);
  for (let waited = 0; ; waited += 100) {
    if ((await server.client.raw({ method: 'GET', path: '/readyz' }).catch(() => undefined))?.statusCode === 200) return server;
    if (waited > 300_000) throw new Error('kube-apiserver-lite was not ready within 300 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The scale point over HTTP (issue 17): `count` x 2 KB ConfigMaps in 100 namespaces in the SQLite file
 * of a kube-apiserver-lite (seeded as {@link seedScaleDirectories} says), each figure beside a control
 * measured in the same run: cold start of the server process to `/readyz` 200 (before and after the
 * compaction the server's compactor would have done), the in-process heap of the server with its caches
 * full, a namespace LIST's p99 with 1,000 watches open, heap per idle HTTP watch and the fan-out of one
 * event to every watch, and a limit=500 paged LIST of everything from the cache and from the storage.
 */
export async function scaleHttpRows(options: { count: number; idleWatches: number; samples: number }): Promise<BenchRow[]> {
  const { count, idleWatches, samples } = options;
  const rows: BenchRow[] = [];
  const directory = mkdtempSync(join(tmpdir(), 'kapi-scale-http-'));
  try {
    console.log(`[bench] scale over HTTP: seeding ${count} ConfigMaps`);
    const seed = await seedScaleDirectories(directory, count, namespaces);
    const seeded = `seeded by raw KV creates into kapi.db at ${seed.seedRate.toFixed(0)}/s; server on SQLite (writer thread)`;
    const timeoutMs = 300_000;
    const control = await coldStart(seed.control, timeoutMs);
    const uncompacted = await coldStart(seed.subject, timeoutMs);
    await compactScaleDirectory(seed.subject);
    const compacted = await coldStart(seed.subject, timeoutMs);
    const control2 = await coldStart(seed.control, timeoutMs);
    const base = Math.min(control.readyMs, control2.readyMs);
    const baseCpu = Math.min(control.cpuMs, control2.cpuMs);
    const coldNotes = `controls ${control.readyMs.toFixed(0)} / ${control2.readyMs.toFixed(0)} ms (the built server's own start: the base); RSS at ready: subject ${(compacted.rss / 1e6).toFixed(0)} MB, control ${(control.rss / 1e6).toFixed(0)} MB; ${seeded}`;
    rows.push({
      ...row(`cold start to /readyz 200, ${count} x 2 KB ConfigMaps, log compacted`, 'kube-apiserver-lite process', compacted.readyMs, 'same server, no ConfigMaps', base, 'ms (lower is better)', '<= 10 s'),
      notes: `cache fill ${(compacted.readyMs - base).toFixed(0)} ms over the control; ${coldNotes}`,
    });
    rows.push({
      ...row(`cold start to /readyz 200, ${count} x 2 KB ConfigMaps, all ${count} creates still in the log`, 'kube-apiserver-lite process', uncompacted.readyMs, 'same server, no ConfigMaps', base, 'ms (lower is better)', '<= 10 s'),
      notes: `cache fill ${(uncompacted.readyMs - base).toFixed(0)} ms over the control, filled by one replay of every create in the log (state and history together, no list)`,
    });
    // Wall time on a loaded machine mostly measures the other processes: the server's own CPU time does not.
    for (const [label, run] of [['log compacted', compacted], [`all ${count} creates still in the log`, uncompacted]] as const) {
      rows.push({
        ...row(`CPU time of the server process from spawn to /readyz 200, ${count} x 2 KB ConfigMaps, ${label}`, 'kube-apiserver-lite (all threads)', run.cpuMs, 'same server, no ConfigMaps', baseCpu, 'ms (lower is better)'),
        notes: `cache fill ${(run.cpuMs - baseCpu).toFixed(0)} ms of CPU over the control (controls ${control.cpuMs} / ${control2.cpuMs} ms, the built server's own start); wall ${run.readyMs.toFixed(0)} ms`,
      });
    }

    const before = await usedMemory();
    const controlStartedAt = performance.now();
    const controlServer = await startReadyServer(seed.control);
    const controlInProcessMs = performance.now() - controlStartedAt;
    const controlHeap = (await usedMemory()) - before;
    controlServer.client.close();
    await controlServer.running.stop();
    const between = await usedMemory();
    const startedAt = performance.now();
    const server = await startReadyServer(seed.subject);
    const inProcessMs = performance.now() - startedAt;
    const watchers: WatcherProcess[] = [];
    try {
      const subjectHeap = (await usedMemory()) - between;
      rows.push({
        ...row(`server heap + external with the caches full, ${count} x 2 KB`, 'growth over the control server', subjectHeap - controlHeap, 'stored JSON of the ConfigMaps', seed.storedBytes, 'bytes (lower is better)', '<= 150% + base'),
        notes: `base (the control server: same bootstrap, no ConfigMaps) ${(controlHeap / 1e6).toFixed(0)} MB; subject ${(subjectHeap / 1e6).toFixed(0)} MB; after forced GC, in process`,
      });
      rows.push(row(`in-process start to /readyz 200 (startControlPlane), ${count} x 2 KB ConfigMaps, log compacted`, 'kube-apiserver-lite', inProcessMs, 'same server, no ConfigMaps', controlInProcessMs, 'ms (lower is better)', '<= 10 s'));

      const endpoint: Endpoint = { url: server.running.url, ca: server.ca, agent: new Agent({ ca: server.ca, keepAlive: true, maxSockets: 1 }) };
      const head = JSON.parse((await getOk(endpoint, '/api/v1/configmaps?limit=1')).toString('utf8')) as { metadata: { resourceVersion: string } };
      const revision = head.metadata.resourceVersion;
      const watchPath = `/api/v1/namespaces/ns-0/configmaps?watch=true&resourceVersion=${revision}`;
      const openWatchers = async (wanted: number): Promise<WatcherProcess> => {
        const process = new WatcherProcess({ url: `${server.running.url}${watchPath}`, ca: server.ca, headers: { authorization: `Bearer ${benchToken}` }, watchers: wanted });
        watchers.push(process);
        await process.ready(120_000 + 30 * wanted, wanted);
        return process;
      };
      await openWatchers(1000);
      const tls = { key: readFileSync(join(seed.subject, 'apiserver.key'), 'utf8'), cert: readFileSync(join(seed.subject, 'apiserver.crt'), 'utf8') };
      // The issue asks for both "100 namespaces" and "a namespace-scoped LIST (100 objects)": a whole
      // namespace here holds count / 100 objects, so the 100-object LIST is a namespace's first page.
      const perNamespace = count / namespaces;
      rows.push(await namespaceListP99(endpoint, tls, server.ca, samples, `${perNamespace} ConfigMaps, RV=0`, perNamespace, (i) => `/api/v1/namespaces/ns-${i % namespaces}/configmaps?resourceVersion=0`));
      rows.push(await namespaceListP99(endpoint, tls, server.ca, samples, 'first page of 100, limit=100, consistent read', Math.min(100, perNamespace), (i) => `/api/v1/namespaces/ns-${i % namespaces}/configmaps?limit=100`));

      const idleBefore = await usedMemory();
      const idle = await openWatchers(idleWatches);
      const perWatch = ((await usedMemory()) - idleBefore) / idleWatches;

      const { namespace, name } = scaleObject(0, namespaces);
      const updated = idle.expect(idleWatches, 60_000);
      const fanOutStart = Date.now();
      await server.client.request({ method: 'PATCH', path: `/api/v1/namespaces/${namespace}/configmaps/${name}`, contentType: 'application/merge-patch+json', body: { data: { fanOut: '1' } } });
      const delivered = await updated;
      if (!delivered.complete) throw new Error(`the update reached ${delivered.lines} of ${idleWatches} watches`);
      const subjectRate = idleWatches / (Math.max(delivered.lastAt - fanOutStart, 1) / 1000);
      // The raw control's sockets live in this process too: the idle watches go first (with both, 20k+ TLS
      // sockets pass the descriptor limit).
      await idle.close();
      await new Promise((resolve) => setTimeout(resolve, 5000));
      const raw = await rawWatchServer(tls);
      const rawClients = new WatcherProcess({ url: raw.url, ca: server.ca, headers: {}, watchers: idleWatches });
      try {
        const rawBefore = await usedMemory();
        await rawClients.ready(120_000 + 30 * idleWatches, idleWatches);
        const rawPerConnection = ((await usedMemory()) - rawBefore) / idleWatches;
        rows.push({
          ...row(`server heap per idle HTTPS watch (${idleWatches} watches, 1,000 more open)`, 'kube-apiserver-lite', perWatch, 'raw node:https, one held response per socket', rawPerConnection, 'bytes (lower is better)', '<= 4 KB'),
          notes: `${(perWatch / 1024).toFixed(1)} KB per watch, ${((perWatch - rawPerConnection) / 1024).toFixed(1)} KB beyond the control; heapUsed + external after forced GC, in process (the watchers are in a child process, HTTP/1.1: one TLS connection per watch); the control is the floor any node:https server pays per open TLS stream`,
        });
        const line = Buffer.from(`${idle.sample ?? '{}'}`.trimEnd() + '\n');
        const rawDone = rawClients.expect(idleWatches, 60_000);
        const rawStart = Date.now();
        await raw.broadcast(line, 1);
        const rawDelivered = await rawDone;
        if (!rawDelivered.complete) throw new Error(`the raw control reached ${rawDelivered.lines} of ${idleWatches} sockets`);
        const rawRate = idleWatches / (Math.max(rawDelivered.lastAt - rawStart, 1) / 1000);
        rows.push({
          ...row(`fan-out of one update to ${idleWatches} idle HTTPS watches`, 'kube-apiserver-lite (PATCH to last delivery)', subjectRate, 'raw node:https, same line per socket', rawRate, 'deliveries/s'),
          notes: 'one event, timed to its last delivery (Date.now in the watcher process, ms resolution), one run each; the 1,000 other watches of the namespace got the event too and are not counted',
        });
      } finally {
        await rawClients.close();
        await raw.close();
      }
      // kubectl and client-go informers watch over HTTP/2: the same idle watches as streams, as many per
      // connection as the server advertises by default (250).
      const h2 = { ca: server.ca, watchers: idleWatches, streamsPerSession: h2StreamsPerConnection };
      const h2PerWatch = await h2HeapPerStream({ ...h2, origin: server.running.url, watchPath });
      const rawH2 = await rawH2WatchServer(tls, h2StreamsPerConnection);
      try {
        const rawH2PerStream = await h2HeapPerStream({ ...h2, origin: rawH2.url, watchPath });
        rows.push({
          ...row(`server heap per idle HTTP/2 watch (${idleWatches} watches, ${h2StreamsPerConnection} streams per connection, 1,000 HTTP/1.1 ones open)`, 'kube-apiserver-lite', h2PerWatch, 'raw node:http2 (core API), one stream with headers sent', rawH2PerStream, 'bytes (lower is better)', '<= 4 KB'),
          notes: `${(h2PerWatch / 1024).toFixed(1)} KB per watch, ${((h2PerWatch - rawH2PerStream) / 1024).toFixed(1)} KB beyond the control; heapUsed + external after forced GC, in process (streams opened by a child process)`,
        });
      } finally {
        await rawH2.close();
      }

      const cachePaged: number[] = [];
      const storagePaged: number[] = [];
      for (let run = 0; run < 2; run++) {
        // RV=N with a limit and no match is a legacy exact read, which the storage serves (a consistent
        // read, RV="", would have its first page cut from the cache); N is read just before, so that
        // compaction cannot have removed it.
        const current = (JSON.parse((await getOk(endpoint, '/api/v1/namespaces/ns-0/configmaps?limit=1')).toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
        storagePaged.push(await pagedList(endpoint, `&resourceVersion=${current}`, count));
        cachePaged.push(await pagedList(endpoint, `&resourceVersion=${revision}&resourceVersionMatch=NotOlderThan`, count));
      }
      rows.push({
        ...row(`paged LIST of ${count} ConfigMaps over HTTPS (limit=500)`, 'first page from the cache (RV=N NotOlderThan)', Math.max(...cachePaged), 'every page from the storage (RV=N, legacy exact)', Math.max(...storagePaged), 'objects/s'),
        notes: `best of 2 alternating runs (cache ${cachePaged.map((rate) => rate.toFixed(0)).join(' / ')}, storage ${storagePaged.map((rate) => rate.toFixed(0)).join(' / ')}); pages after the first are exact reads by the storage in both (continue tokens); the watches are still open`,
      });
      endpoint.agent.destroy();
    } finally {
      for (const process of watchers) await process.close();
      server.client.close();
      await server.running.stop();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return rows;
}
