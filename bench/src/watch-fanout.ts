import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient } from '@kapi/client';
import type { RunningControlPlane } from '@kapi/kube-apiserver-lite';
import { row, sampleObject, type BenchRow } from './harness.js';
import { benchToken, startServer as startBenchServer } from './http-bench.js';

const clientScript = fileURLToPath(new URL('./watch-fanout-clients.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ClientStats {
  lines: number;
  lastAt: number;
  ended: number;
  failed: number;
}

/** The forked watcher process (watch-fanout-clients.ts) and a typed view of its messages. */
export class WatcherProcess {
  private readonly child: ChildProcess;
  private readonly waiters = new Map<string, Array<(message: Record<string, unknown>) => void>>();
  private exited = false;
  sample: string | undefined;

  constructor(spec: { url: string; ca: string; headers: Record<string, string>; watchers: number }) {
    this.child = fork(clientScript, [JSON.stringify(spec)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message: Record<string, unknown>) => {
      if (message.type === 'sample') this.sample = String(message.line);
      const waiting = this.waiters.get(String(message.type)) ?? [];
      this.waiters.delete(String(message.type));
      for (const resolve of waiting) resolve(message);
    });
    this.child.once('exit', () => {
      this.exited = true;
      for (const waiting of this.waiters.values()) for (const resolve of waiting) resolve({ type: 'exit' });
      this.waiters.clear();
    });
  }

  /** The next message of `type`, or undefined after `timeoutMs` or when the process exits. */
  next(type: string, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
    if (this.exited) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      const list = this.waiters.get(type) ?? [];
      list.push((message) => {
        clearTimeout(timer);
        resolve(message.type === 'exit' ? undefined : message);
      });
      this.waiters.set(type, list);
    });
  }

  send(message: Record<string, unknown>): void {
    if (!this.exited && this.child.connected) this.child.send(message);
  }

  /** Waits for the watchers to open; fails unless all `wanted` of them did. */
  async ready(timeoutMs: number, wanted: number): Promise<{ open: number; failed: number }> {
    const message = await this.next('ready', timeoutMs);
    if (!message) throw new Error(`watchers did not open within ${timeoutMs} ms`);
    const open = Number(message.open);
    const failed = Number(message.failed);
    if (open < wanted) throw new Error(`${open} of ${wanted} watchers opened (${failed} failed)`);
    return { open, failed };
  }

  /** Waits until `lines` event lines have arrived in total (or `timeoutMs`); returns the counters. */
  async expect(lines: number, timeoutMs: number): Promise<ClientStats & { complete: boolean }> {
    const done = this.next('done', timeoutMs);
    this.send({ type: 'expect', lines });
    const message = (await done) ?? (this.send({ type: 'stats' }), await this.next('stats', 5000));
    return {
      lines: Number(message?.lines ?? 0),
      lastAt: Number(message?.lastAt ?? 0),
      ended: Number(message?.ended ?? 0),
      failed: Number(message?.failed ?? 0),
      complete: message?.type === 'done',
    };
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.send({ type: 'close' });
    await Promise.race([exited, sleep(3000)]);
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

/**
 * Counts `JSON.stringify` calls on watch-event-shaped values (`{ type, object }`) while installed: those
 * whose object is one of the written ConfigMaps (`metadata.name` starting with `event-`) and the others;
 * an encode of such a ConfigMap alone as served (with its resourceVersion, spliced into the event line)
 * counts as one of the first.
 */
class EncodeCounter {
  count = 0;
  other = 0;
  private readonly original = JSON.stringify;

  install(): void {
    const original = this.original;
    JSON.stringify = ((value: unknown, ...rest: unknown[]): string => {
      if (value !== null && typeof value === 'object' && 'type' in value && 'object' in value) {
        const object = (value as { object?: { metadata?: { name?: unknown } } }).object;
        const name = object?.metadata?.name;
        if (typeof name === 'string' && name.startsWith('event-')) this.count++;
        else this.other++;
      } else if (value !== null && typeof value === 'object') {
        // The object alone as served (with its resourceVersion), encoded once and spliced into the event
        // line. The writer's request body and the storage's own encode carry no resourceVersion: they are
        // not watch encodes.
        const metadata = (value as { metadata?: { name?: unknown; resourceVersion?: unknown } }).metadata;
        if (typeof metadata?.name === 'string' && metadata.name.startsWith('event-') && metadata.resourceVersion !== undefined) this.count++;
      }
      return (original as (...args: unknown[]) => string).call(JSON, value, ...rest);
    }) as typeof JSON.stringify;
  }

  uninstall(): void {
    JSON.stringify = this.original;
  }
}

/** A raw node:https "watch" server: holds every request open and writes given lines to all of them. */
export async function rawWatchServer(tls: { key: string; cert: string }) {
  const responses: ServerResponse[] = [];
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    response.flushHeaders();
    responses.push(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Writes `line` to every stream, `events` times, one write per event per socket, honouring backpressure. */
    async broadcast(line: Buffer, events: number): Promise<void> {
      for (let event = 0; event < events; event++) {
        const drains: Array<Promise<void>> = [];
        for (const response of responses) {
          if (!response.write(line)) drains.push(new Promise((resolve) => response.once('drain', () => resolve())));
        }
        if (drains.length) await Promise.all(drains);
        else await new Promise((resolve) => setImmediate(resolve));
      }
    },
    close: async () => {
      for (const response of responses) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A bench server and the credentials its watchers use. */
interface Server {
  running: RunningControlPlane;
  client: RestClient;
  ca: string;
  token: string;
}

async function startServer(directory: string): Promise<Server> {
  const { running, client, ca } = await startBenchServer(directory, ['--storage=memory']);
  return { running, client, ca, token: benchToken };
}

const configMap = (name: string) => ({ ...sampleObject(name), metadata: { name, namespace: 'default' } });

interface RunResult {
  rate: number;
  /** This process's CPU (server and, for the subject, its writer) per delivery, in microseconds. */
  cpuPerDelivery: number;
  lines: number;
  expected: number;
  ended: number;
  complete: boolean;
  notes: string;
}

/**
 * A run's rate and counters from its watchers' stats; a run that timed out before every delivery arrived
 * fails (a partial run's rate would measure the timeout, not the server) (`started`: when its first event was sent, epoch ms;
 * `cpu`: this process's CPU usage then).
 */
function runResult(
  stats: ClientStats & { complete: boolean },
  started: number,
  cpu: NodeJS.CpuUsage,
  expected: number,
  notes: (seconds: number) => string,
): RunResult {
  if (!stats.complete) throw new Error(`timed out after ${stats.lines} of ${expected} deliveries (${stats.ended} streams ended early)`);
  const seconds = Math.max(stats.lastAt - started, 1) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    rate: stats.lines / seconds,
    cpuPerDelivery: (used.user + used.system) / Math.max(stats.lines, 1),
    lines: stats.lines,
    expected,
    ended: stats.ended,
    complete: stats.complete,
    notes: notes(seconds),
  };
}

/** One subject run: new watchers from the current resourceVersion, then `events` sequential creates. */
async function subjectRun(
  server: Server,
  run: number,
  options: { watchers: number; events: number; timeoutMs: number },
): Promise<RunResult & { writes: number; sample: string | undefined }> {
  const path = '/api/v1/namespaces/default/configmaps';
  const list = await server.client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}?limit=1` });
  const headers = { authorization: `Bearer ${server.token}` };
  const clients = new WatcherProcess({ url: `${server.running.url}${path}?watch=true&resourceVersion=${list.metadata.resourceVersion}`, ca: server.ca, headers, watchers: options.watchers });
  try {
    const opened = await clients.ready(options.timeoutMs, options.watchers);
    console.log(`[bench] fan-out: ${opened.open} watchers open on kube-apiserver-lite (${opened.failed} failed)`);
    const started = Date.now();
    const cpu = process.cpuUsage();
    let writes = 0;
    const writer = (async () => {
      for (let i = 0; i < options.events; i++) {
        await server.client.request({ method: 'POST', path, body: configMap(`event-${run}-${i}`) });
        writes++;
      }
    })();
    const done = clients.expect(opened.open * options.events, options.timeoutMs);
    await writer;
    const writerSeconds = (Date.now() - started) / 1000;
    const result = runResult(await done, started, cpu, opened.open * options.events, (seconds) => `writer done after ${writerSeconds.toFixed(2)} s, last delivery after ${seconds.toFixed(2)} s`);
    console.log(`[bench] fan-out: ${result.lines} deliveries of ${writes} events; ${result.notes}; ${result.ended} streams ended early`);
    return { ...result, writes, sample: clients.sample };
  } finally {
    await clients.close();
  }
}

/** One control run: a raw node:https server writing `sample` to the same number of sockets, `events` times. */
async function controlRun(
  tls: { key: string; cert: string },
  ca: string,
  sample: string,
  options: { watchers: number; events: number; timeoutMs: number },
): Promise<RunResult> {
  const raw = await rawWatchServer(tls);
  const clients = new WatcherProcess({ url: raw.url, ca, headers: {}, watchers: options.watchers });
  try {
    const opened = await clients.ready(options.timeoutMs, options.watchers);
    const started = Date.now();
    const cpu = process.cpuUsage();
    const done = clients.expect(opened.open * options.events, options.timeoutMs);
    await raw.broadcast(Buffer.from(sample), options.events);
    const broadcastSeconds = (Date.now() - started) / 1000;
    return runResult(await done, started, cpu, opened.open * options.events, (seconds) => `server done writing after ${broadcastSeconds.toFixed(2)} s, last delivery after ${seconds.toFixed(2)} s`);
  } finally {
    await clients.close();
    await raw.close();
  }
}

/**
 * Scenario 1: one writer and N HTTPS watchers (in a child process) on one resource of an in-process
 * kube-apiserver-lite (memory storage, watch cache on), beside a raw node:https server writing the same
 * event line to the same number of sockets. Subject and control run twice each, alternately, and each
 * keeps its best run (this VM's throughput drifts by tens of percent within minutes). Also counts
 * watch-event encodes in the server process.
 */
export async function watchFanOutRows(options: { watchers: number; events: number; timeoutMs: number }): Promise<BenchRow[]> {
  const { watchers, events } = options;
  const directory = mkdtempSync(join(tmpdir(), 'kapi-watch-bench-'));
  const rows: BenchRow[] = [];
  const counter = new EncodeCounter();
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(directory);
    await server.client.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: configMap('warm-up') });
    const tls = { key: readFileSync(join(directory, 'apiserver.key'), 'utf8'), cert: readFileSync(join(directory, 'apiserver.crt'), 'utf8') };
    const subjects: Array<Awaited<ReturnType<typeof subjectRun>>> = [];
    const controls: RunResult[] = [];
    for (let run = 0; run < 2; run++) {
      counter.install();
      try {
        subjects.push(await subjectRun(server, run, options));
      } finally {
        counter.uninstall();
      }
      const sample = subjects[0]?.sample ?? `${JSON.stringify({ type: 'ADDED', object: configMap('sample') })}\n`;
      controls.push(await controlRun(tls, server.ca, sample, options));
    }
    const best = <T extends RunResult>(runs: T[]): T => runs.reduce((a, b) => (b.rate > a.rate ? b : a));
    const subject = best(subjects);
    const control = best(controls);
    const sampleBytes = Buffer.byteLength(subjects[0]?.sample ?? '');
    const describe = (name: string, r: RunResult) =>
      `${name} ${r.lines}/${r.expected} deliveries${r.complete ? '' : ' (timed out)'}, ${r.ended} streams ended early, ${r.notes}`;
    const cpu = (runs: RunResult[]) => runs.map((r) => r.cpuPerDelivery.toFixed(1)).join(' / ');
    rows.push({
      ...row(`watch fan-out, ${watchers} HTTPS watchers, ${events} x ${sampleBytes} B events, 1 writer`, 'kube-apiserver-lite (memory, watch cache)', subject.rate, 'raw node:https, same line per socket', control.rate, 'deliveries/s', '>= 80%'),
      notes: `best of 2 runs each, alternating (subject ${subjects.map((r) => r.rate.toFixed(0)).join(' / ')}, control ${controls.map((r) => r.rate.toFixed(0)).join(' / ')}); server-process CPU per delivery: subject ${cpu(subjects)} µs (with its writer), control ${cpu(controls)} µs; ${describe('subject', subject)}; ${describe('control', control)}`,
    });
    const writes = subjects.reduce((sum, r) => sum + r.writes, 0);
    rows.push({
      ...row(`watch event encodes per event, ${watchers} watchers`, 'kube-apiserver-lite encodes/event', counter.count / Math.max(writes, 1), 'one per apiVersion', 1, 'encodes/event', '~1 (not 1 per watcher)'),
      notes: `${counter.count} JSON.stringify calls on the ${writes} written events' {type, object} values or served objects (${counter.other} on other watch events)`,
    });
  } finally {
    counter.uninstall();
    if (server) {
      server.client.close();
      await server.running.stop().catch((error: unknown) => console.error('[bench] cleanup failed:', error));
    }
    rmSync(directory, { recursive: true, force: true });
  }
  return rows;
}
