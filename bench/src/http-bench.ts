import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { KubeObject } from '@kapi/apimachinery';
import { RestClient } from '@kapi/client';
import { parseOptions, startControlPlane } from '@kapi/kube-apiserver-lite';
import { Store, type KVBackend } from '@kapi/storage';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { Etcd3Backend } from '@kapi/storage-etcd3';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { inProcessCpu, type ChainCpu, type Handler } from './chain-cpu.js';
import { startCpuSplit } from './cpu-split.js';
import { profiled } from './cpu-profile.js';
import { getRows } from './get-bench.js';
import { measureRate, row, sampleObject, type BenchRow } from './harness.js';
import { generatedName, rawCreateRateAround } from './raw-create.js';

/** A 2 KB ConfigMap without a namespace (the URL gives it). */
const httpObject = (name: string) => ({ ...sampleObject(name), metadata: { name } });

const execFileAsync = promisify(execFile);
const loadScript = fileURLToPath(new URL('./load-generator.ts', import.meta.url));

interface LoadResult {
  requestsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

/** Runs the load generator in a separate process; a run with errors or non-2xx answers fails the bench. */
export async function load(spec: Record<string, unknown>): Promise<LoadResult> {
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', loadScript, JSON.stringify(spec)], { maxBuffer: 16 << 20 });
  const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult;
  if (result.errors > 0 || result.non2xx > 0)
    throw new Error(`${String(spec.method ?? 'GET')} ${String(spec.url)}: ${result.errors} errors, ${result.non2xx} non-2xx answers (${JSON.stringify(result.statusCodes)})`);
  return result;
}

/** What {@link warmedLoad} measured: the load's figures and this process's CPU per request. */
export type WarmedResult = LoadResult & {
  /** All threads of this process (where the servers run). */
  cpuMicrosPerRequest: number;
  /** The main thread alone (see {@link startCpuSplit}). */
  mainThreadMicrosPerRequest: number;
  /** The main thread's GC pauses. */
  gcPauseMicrosPerRequest: number;
};

/**
 * Two seconds of the same load first (JIT warm-up, connection set-up), then the measured run, with the
 * CPU time this process (where the servers run) spent per request during it, in all and on the main
 * thread, and the main thread's GC pauses. `around` wraps the measured run only (e.g. a CPU profile of it).
 */
export async function warmedLoad(
  spec: Record<string, unknown>,
  around: (run: () => Promise<LoadResult>) => Promise<LoadResult> = (run) => run(),
): Promise<WarmedResult> {
  await load({ ...spec, durationSeconds: 2 });
  const before = process.cpuUsage();
  const stopSplit = startCpuSplit();
  const result = await around(() => load(spec));
  const split = stopSplit();
  const cpu = process.cpuUsage(before);
  const requests = result.requestsPerSecond * Number(spec.durationSeconds);
  const cpuMicrosPerRequest = (cpu.user + cpu.system) / requests;
  const mainThreadMicrosPerRequest = split.mainThread / requests;
  const gcPauseMicrosPerRequest = split.gcPauses / requests;
  // Per run (the rows keep the best of several): the request count is what profile-diff.ts divides by.
  console.log(
    `[bench] ${String(spec.method ?? 'GET')} ${String(spec.url)}: ${Math.round(requests)} requests, ${Math.round(result.requestsPerSecond)}/s, ` +
      `${Math.round(cpuMicrosPerRequest)} µs CPU each (main thread ${Math.round(mainThreadMicrosPerRequest)}, of which GC pauses ${Math.round(gcPauseMicrosPerRequest)})`,
  );
  return { ...result, cpuMicrosPerRequest, mainThreadMicrosPerRequest, gcPauseMicrosPerRequest };
}

/**
 * Subject and control measured twice, alternately, keeping each one's best run: on a shared 2-vCPU VM
 * the rate drifts by tens of percent within minutes, and alternating keeps a drift from favouring either.
 */
export async function alternately<T extends { requestsPerSecond: number }>(control: () => Promise<T>, subject: () => Promise<T>): Promise<{ control: T; subject: T }> {
  const best = (a: T, b: T) => (b.requestsPerSecond > a.requestsPerSecond ? b : a);
  const control1 = await control();
  const subject1 = await subject();
  const control2 = await control();
  const subject2 = await subject();
  return { control: best(control1, control2), subject: best(subject1, subject2) };
}

/**
 * The highest heapUsed + external (Buffers) of this process (where the server runs) while a load runs,
 * over the level measured just before it, after a full GC; the largest growth of all the runs it watched.
 */
class MemoryPeak {
  growth = 0;

  async during<T>(run: () => Promise<T>): Promise<T> {
    collectGarbage();
    const used = () => {
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.external;
    };
    const idle = used();
    let peak = idle;
    const timer = setInterval(() => (peak = Math.max(peak, used())), 20);
    try {
      return await run();
    } finally {
      clearInterval(timer);
      this.growth = Math.max(this.growth, peak - idle);
    }
  }
}

/** A full garbage collection (`gc` exposed at run time, so the bench needs no `--expose-gc`). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * A bare node:https server answering every request with the same bytes (the control), under the same
 * response headers as the apiserver's (`Cache-Control` included: the same bytes on the wire).
 */
export async function bareServer(body: Buffer, tls: { key: string; cert: string }): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length, 'Cache-Control': 'no-cache, private' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The ceiling's handler: parse the body, `Store.create` under a generated name (retrying on a taken name,
 * as the apiserver does), answer with the created object's JSON. Nothing else (no authentication,
 * admission, validation, field manager or watch cache).
 */
function bareCreateHandler(kv: KVBackend, namespace: string): Handler {
  const store = new Store({ kv });
  const create = async (object: KubeObject): Promise<KubeObject> => {
    for (let attempt = 0; ; attempt++) {
      const name = generatedName();
      try {
        return await store.create(`/registry/configmaps/${namespace}/${name}`, { ...object, metadata: { name, namespace } });
      } catch (error) {
        if (attempt >= 7) throw error;
      }
    }
  };
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      create(JSON.parse(Buffer.concat(chunks).toString('utf8')) as KubeObject).then(
        (created) => {
          const body = Buffer.from(JSON.stringify(created));
          response.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': body.length });
          response.end(body);
        },
        (error: unknown) => {
          response.writeHead(500, { 'Content-Type': 'text/plain' });
          response.end(String(error));
        },
      );
    });
  };
}

/**
 * The most any HTTPS apiserver could reach here on creates: {@link bareCreateHandler} on a bare node:https
 * server. The load generator shares the VM's vCPUs with it, so its rate against the raw backend's shows
 * how much of the create target this machine leaves to any server, and ours against it shows what our
 * apiserver costs on top.
 */
async function bareCreateServer(kv: KVBackend, namespace: string, tls: { key: string; cert: string }): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, bareCreateHandler(kv, namespace));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/namespaces/${namespace}/configmaps`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A create run's rate and the server process's CPU per create (see {@link warmedLoad}). */
type CreateRun = Pick<WarmedResult, 'requestsPerSecond' | 'cpuMicrosPerRequest' | 'mainThreadMicrosPerRequest' | 'gcPauseMicrosPerRequest'>;

/**
 * The create rows of a backend: ours against the raw backend (the target), the bare-server ceiling, and
 * the CPU per create of each server process (less sensitive to the shared VM's load than the rates).
 */
function createRows(backend: string, ours: CreateRun, ceiling: CreateRun, raw: number, inProcess: ChainCpu): BenchRow[] {
  return [
    row(`create over HTTPS, 64 connections (${backend})`, 'kube-apiserver-lite', ours.requestsPerSecond, `raw ${backend} Store.create, 64 in flight`, raw, 'writes/s', '>= 50%'),
    row(`create ceiling on this machine (${backend})`, 'bare node:https + Store.create', ceiling.requestsPerSecond, `raw ${backend} Store.create, 64 in flight`, raw, 'writes/s'),
    row(`create over HTTPS vs that ceiling (${backend})`, 'kube-apiserver-lite', ours.requestsPerSecond, 'bare node:https + Store.create', ceiling.requestsPerSecond, 'writes/s', '>= 80%'),
    // The ratio is bare / ours: the share of the bare server's CPU efficiency.
    {
      ...row(`server CPU per create (${backend})`, 'kube-apiserver-lite', ours.cpuMicrosPerRequest, 'bare node:https + Store.create', ceiling.cpuMicrosPerRequest, 'µs/create (lower is better)'),
      ratio: ceiling.cpuMicrosPerRequest / ours.cpuMicrosPerRequest,
    },
    // Where that CPU goes: the event loop, and on it the GC pauses; the rest runs on other threads
    // (the storage writer thread, V8's GC helpers, which copy and mark what the watch cache keeps).
    ...cpuPartRows(backend, 'main thread', ours.mainThreadMicrosPerRequest, ceiling.mainThreadMicrosPerRequest),
    ...cpuPartRows(backend, 'main-thread GC pauses', ours.gcPauseMicrosPerRequest, ceiling.gcPauseMicrosPerRequest),
    ...cpuPartRows(backend, 'other threads', ours.cpuMicrosPerRequest - ours.mainThreadMicrosPerRequest, ceiling.cpuMicrosPerRequest - ceiling.mainThreadMicrosPerRequest),
    {
      ...row(`create CPU in process (no sockets, no TLS) (${backend})`, 'kube-apiserver-lite handler', inProcess.subject, 'the ceiling\'s handler (parse, Store.create, stringify)', inProcess.control, 'µs/create (lower is better)'),
      ratio: inProcess.control / inProcess.subject,
      notes: `node's request/response objects handed to each handler in this process, ${inProcessCreates.inFlight} in flight: what the server adds per create, least sensitive to the machine's load (best of ${inProcessCreates.rounds} alternated runs of ${inProcessCreates.requests})`,
    },
  ];
}

/** A part of the server CPU per create, ours beside the ceiling's (none where /proc gave no figure). */
function cpuPartRows(backend: string, part: string, ours: number, ceiling: number): BenchRow[] {
  if (!(ours > 0) || !(ceiling > 0)) return [];
  return [{ ...row(`server CPU per create, ${part} (${backend})`, 'kube-apiserver-lite', ours, 'bare node:https + Store.create', ceiling, 'µs/create (lower is better)'), ratio: ceiling / ours }];
}

/** The in-process create runs (see {@link inProcessCpu}). */
const inProcessCreates = { requests: 5000, rounds: 3, inFlight: 64 };

/** {@link inProcessCpu} of the bench's create on `handler` beside the ceiling's handler on `kv`. */
function inProcessCreateCpu(handler: Handler, kv: KVBackend, headers: Record<string, string>, body: string): Promise<ChainCpu> {
  const path = '/api/v1/namespaces/default/configmaps';
  return inProcessCpu(handler, bareCreateHandler(kv, 'bare-create'), { method: 'POST', path, headers, body: Buffer.from(body), status: 201 }, inProcessCreates);
}

/** The bearer token of the `system:masters` user every bench server accepts. */
export const benchToken = 'bench-token';

/**
 * Starts kube-apiserver-lite in this process with `storageArgs`, no in-flight limits and {@link benchToken}
 * (plus the flags in `KAPI_BENCH_SERVER_ARGS`, space-separated, for experiments such as `--watch-cache=false`);
 * waits for /readyz.
 */
export async function startServer(directory: string, storageArgs: string[]) {
  const tokens = join(directory, 'tokens.csv');
  writeFileSync(tokens, `${benchToken},bench,1,"system:masters"\n`);
  const options = parseOptions([
    ...storageArgs,
    `--data-dir=${directory}`,
    '--secure-port=0',
    `--token-auth-file=${tokens}`,
    '--max-requests-inflight=0',
    '--max-mutating-requests-inflight=0',
    ...(process.env.KAPI_BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? []),
  ]);
  const running = await startControlPlane(options);
  const ca = readCa(directory);
  const client = new RestClient({ server: running.url, token: benchToken, ca });
  for (let i = 0; i < 200; i++) {
    const ready = await client.raw({ method: 'GET', path: '/readyz' }).catch(() => undefined);
    if (ready?.statusCode === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { running, client, ca, headers: { authorization: `Bearer ${benchToken}`, 'content-type': 'application/json' } };
}

function readCa(directory: string): string {
  return readFileSync(join(directory, 'ca.crt'), 'utf8');
}

/** The GET rows alone (scenario `get`): one 2 KB object on SQLite beside its controls. */
export async function getBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const directory = mkdtempSync(join(tmpdir(), 'kapi-get-bench-'));
  try {
    const server = await startServer(directory, ['--storage=sqlite']);
    const path = '/api/v1/namespaces/default/configmaps';
    await server.client.request({ method: 'POST', path, body: httpObject('two-kb') });
    const bytes = (await server.client.raw({ method: 'GET', path: `${path}/two-kb` })).body;
    const tls = { key: readFileSync(join(directory, 'apiserver.key'), 'utf8'), cert: readFileSync(join(directory, 'apiserver.crt'), 'utf8') };
    const rows = await getRows(server, `${path}/two-kb`, bytes, tls, options.quick ? 5 : 10);
    server.client.close();
    await server.running.stop();
    return rows;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The parts of the `http` scenario, in the order they run. */
const httpParts = ['get', 'create-sqlite', 'list', 'create-etcd'] as const;
type HttpPart = (typeof httpParts)[number];

/** The parts to run: `KAPI_BENCH_HTTP_PARTS` (comma-separated, e.g. `create-sqlite,create-etcd`), else all. */
function selectedHttpParts(): Set<HttpPart> {
  const wanted = process.env.KAPI_BENCH_HTTP_PARTS;
  if (!wanted) return new Set(httpParts);
  const parts = wanted.split(',').map((part) => part.trim());
  const unknown = parts.filter((part) => !(httpParts as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`KAPI_BENCH_HTTP_PARTS: unknown part(s) ${unknown.join(', ')} (known: ${httpParts.join(', ')})`);
  return new Set(parts as HttpPart[]);
}

/**
 * HTTP scenarios: GET of one 2 KB object, create, LIST of 10k, each beside its control. `KAPI_BENCH_HTTP_PARTS`
 * picks some of them (`get`, `create-sqlite`, `list`, `create-etcd`).
 */
export async function httpBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const duration = options.quick ? 5 : 10;
  const parts = selectedHttpParts();
  const path = '/api/v1/namespaces/default/configmaps';
  const createBody = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'bench-' }, data: { payload: 'x'.repeat(2048) } });
  const rows: BenchRow[] = [];
  const directory = mkdtempSync(join(tmpdir(), 'kapi-http-bench-'));
  try {
    if (parts.has('get') || parts.has('create-sqlite') || parts.has('list')) await sqliteParts();
    if (parts.has('create-etcd')) await etcdCreates();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return rows;

  async function sqliteParts(): Promise<void> {
    console.log('[bench] kube-apiserver-lite on SQLite');
    const server = await startServer(directory, ['--storage=sqlite']);
    await server.client.request({ method: 'POST', path, body: httpObject('two-kb') });
    const bytes = (await server.client.raw({ method: 'GET', path: `${path}/two-kb` })).body;
    const tls = { key: readFileSync(join(directory, 'apiserver.key'), 'utf8'), cert: readFileSync(join(directory, 'apiserver.crt'), 'utf8') };
    if (parts.has('get')) rows.push(...(await getRows(server, `${path}/two-kb`, bytes, tls, duration)));
    const spec = { connections: 100, durationSeconds: duration, ca: server.ca };

    if (parts.has('create-sqlite')) await sqliteCreates(server, tls, spec);
    if (parts.has('list')) await lists(server, tls, spec);
    server.client.close();
    await server.running.stop();
  }

  /** create over HTTP vs the raw backend doing the same writes (SQLite). */
  async function sqliteCreates(server: Awaited<ReturnType<typeof startServer>>, tls: { key: string; cert: string }, spec: Record<string, unknown>): Promise<void> {
    // The same mode as the server's (kube-apiserver-lite commits on a writer thread by default).
    const rawSqlite = await SqliteBackend.open({ path: join(directory, 'raw.db'), writerThread: true });
    // The raw control's database is its own: its writes (a 5-10 s run, twice) do not grow the ceiling's.
    const rawControl = await SqliteBackend.open({ path: join(directory, 'raw-control.db'), writerThread: true });
    const bareCreate = await bareCreateServer(rawSqlite, 'bare-create', tls);
    const createSpec = { ...spec, connections: 64, method: 'POST', body: createBody, headers: server.headers };
    const {
      raw: rawRate,
      result: { control: ceiling, subject: created },
    } = await rawCreateRateAround(rawControl, duration, () =>
      alternately(
        () => warmedLoad({ ...createSpec, url: bareCreate.url }, (run) => profiled('create-ceiling-sqlite', run)),
        () => warmedLoad({ ...createSpec, url: `${server.running.url}${path}` }, (run) => profiled('create-sqlite', run)),
      ),
    );
    await bareCreate.close();
    await rawControl.close();
    const inProcess = await inProcessCreateCpu(server.running.server.handler, rawSqlite, server.headers, createBody);
    await rawSqlite.close();
    rows.push(...createRows('SQLite', created, ceiling, rawRate, inProcess));
  }

  /** LIST of 10k objects, its memory, and as a Table. */
  async function lists(server: Awaited<ReturnType<typeof startServer>>, tls: { key: string; cert: string }, spec: { connections: number; durationSeconds: number; ca: string }): Promise<void> {
    const listPath = '/api/v1/namespaces/list-bench/configmaps';
    await server.client.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'list-bench' } } });
    await measureRate(10_000, 64, (i) => server.client.request({ method: 'POST', path: listPath, body: httpObject(`o${i}`) }));
    const listBytes = (await server.client.raw({ method: 'GET', path: listPath })).body;
    const listControl = await bareServer(listBytes, tls);
    // A 20+ MB LIST takes seconds on a loaded VM: long enough runs that several complete on each side.
    const listSpec = { ...spec, connections: 4, durationSeconds: Math.max(duration, 15) };
    const { control: bareList, subject: list } = await alternately(
      () => warmedLoad({ ...listSpec, url: `${listControl.url}${listPath}` }),
      () => warmedLoad({ ...listSpec, url: `${server.running.url}${listPath}?resourceVersion=0`, headers: server.headers }),
    );
    // The runs above made the cache's item encodings (kept with the objects): memory is measured after
    // them, from a full GC, over 4 LISTs sent at once.
    const listMemory = new MemoryPeak();
    await listMemory.during(() => load({ ...listSpec, amount: 4, url: `${server.running.url}${listPath}?resourceVersion=0`, headers: server.headers }));
    if (!(list.requestsPerSecond > 0 && bareList.requestsPerSecond > 0))
      throw new Error(`LIST: no list completed within ${listSpec.durationSeconds} s (subject ${list.requestsPerSecond}/s, control ${bareList.requestsPerSecond}/s)`);
    const megabytes = (listBytes.length / 1e6).toFixed(1);
    rows.push(row(`LIST 10k x 2 KB (${megabytes} MB, RV=0, from the watch cache), 4 connections`, 'kube-apiserver-lite', list.requestsPerSecond, 'bare node:https, same bytes', bareList.requestsPerSecond, 'lists/s', '>= 70%'));
    rows.push({
      ...row(`server memory growth during 4 concurrent ${megabytes} MB LISTs`, 'peak heap + external over the idle level', listMemory.growth, 'one response', listBytes.length, 'bytes (lower is better)', '<= 200%'),
      notes: 'sampled every 20 ms from a full GC, during 4 LISTs sent at once with the item encodings already cached (garbage not yet collected counts)',
    });
    await listControl.close();
    // The same LIST as kubectl get asks for it (a Table of cached cells) beside the JSON LIST, alternated.
    const tableHeaders = { ...server.headers, accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' };
    const { control: jsonList, subject: tableList } = await alternately(
      () => warmedLoad({ ...listSpec, url: `${server.running.url}${listPath}?resourceVersion=0`, headers: server.headers }),
      () => warmedLoad({ ...listSpec, url: `${server.running.url}${listPath}?resourceVersion=0`, headers: tableHeaders }),
    );
    rows.push(row('LIST 10k as Table (kubectl get), 4 connections', 'kube-apiserver-lite, Table', tableList.requestsPerSecond, 'kube-apiserver-lite, JSON LIST', jsonList.requestsPerSecond, 'lists/s'));
  }

  /** create over HTTP on etcd, beside the bare ceiling on the same etcd. */
  async function etcdCreates(): Promise<void> {
    console.log('[bench] kube-apiserver-lite on etcd');
    const etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
    try {
      const etcdDir = mkdtempSync(join(tmpdir(), 'kapi-http-bench-etcd-'));
      const etcdServer = await startServer(etcdDir, ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`]);
      // The controls write under a prefix of their own, outside the keys the running server's watch
      // cache follows (it would otherwise ingest their writes in this process, on their CPU).
      const rawEtcd = await Etcd3Backend.connect({ endpoints: [etcd.endpoint], prefix: '/bench-control' });
      const tls = { key: readFileSync(join(etcdDir, 'apiserver.key'), 'utf8'), cert: readFileSync(join(etcdDir, 'apiserver.crt'), 'utf8') };
      const bareCreate = await bareCreateServer(rawEtcd, 'bare-create', tls);
      const createSpec = { connections: 64, durationSeconds: duration, ca: etcdServer.ca, method: 'POST', body: createBody, headers: etcdServer.headers };
      // etcd's own CPU per create beside the server's: the three processes (load generator, server, etcd)
      // share the machine's cores, so what etcd spends on a create (e.g. sending watch events) is not the server's.
      const etcdCpu = (name: string) => (run: () => Promise<LoadResult>) =>
        profiled(name, async () => {
          const before = processCpuMicros(etcd.pid);
          const result = await run();
          const used = processCpuMicros(etcd.pid) - before;
          console.log(`[bench] ${name}: etcd ${Math.round(used / (result.requestsPerSecond * duration))} µs CPU per create`);
          return result;
        });
      const {
        raw: rawEtcdRate,
        result: { control: ceiling, subject: createdEtcd },
      } = await rawCreateRateAround(rawEtcd, duration, () =>
        alternately(
          () => warmedLoad({ ...createSpec, url: bareCreate.url }, etcdCpu('create-ceiling-etcd')),
          () => warmedLoad({ ...createSpec, url: `${etcdServer.running.url}${path}` }, etcdCpu('create-etcd')),
        ),
      );
      await bareCreate.close();
      const inProcess = await inProcessCreateCpu(etcdServer.running.server.handler, rawEtcd, etcdServer.headers, createBody);
      await rawEtcd.close();
      etcdServer.client.close();
      await etcdServer.running.stop();
      rows.push(...createRows('etcd', createdEtcd, ceiling, rawEtcdRate, inProcess));
      rmSync(etcdDir, { recursive: true, force: true });
    } finally {
      await etcd.stop();
    }
  }
}

/** User + system CPU time of process `pid` in µs (from /proc; 0 where there is none). */
function processCpuMicros(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in clock ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicksPerSecond;
  } catch {
    return 0;
  }
}

/** The kernel's USER_HZ, what /proc reports CPU times in (100 on Linux). */
const clockTicksPerSecond = 100;
