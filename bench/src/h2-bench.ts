import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient } from '@kapi/client';
import type { RunningControlPlane } from '@kapi/kube-apiserver-lite';
import { row, sampleObject, type BenchRow } from './harness.js';
import { benchToken, startServer as startBenchServer } from './http-bench.js';

const clientScript = fileURLToPath(new URL('./h2-clients.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const path = '/api/v1/namespaces/default/configmaps';
/** The server's SETTINGS_MAX_CONCURRENT_STREAMS (upstream's default, Go's 250). */
const streamsPerSession = 250;
type Protocol = 'h1' | 'h2';

interface Server {
  running: RunningControlPlane;
  client: RestClient;
  ca: string;
  token: string;
}

/** One forked client process of h2-clients.ts (`streamsPerSession` defaults to the server's default). */
export class Clients {
  private readonly child: ChildProcess;
  private readonly messages: Array<Record<string, unknown>> = [];
  private readonly waiters: Array<() => void> = [];
  private exited = false;

  constructor(spec: Record<string, unknown>) {
    this.child = fork(clientScript, [JSON.stringify({ streamsPerSession, ...spec })], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const wake = () => {
      for (const waiter of this.waiters.splice(0)) waiter();
    };
    this.child.on('message', (message: Record<string, unknown>) => {
      this.messages.push(message);
      wake();
    });
    this.child.once('exit', () => {
      this.exited = true;
      wake();
    });
    // A `get` client disconnects once it has sent its result: a later `close` may meet a closed channel.
    this.child.on('error', () => undefined);
  }

  /** The next message of `type`; fails after `timeoutMs` or when the process exits first. */
  async next(type: string, timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.messages.findIndex((message) => message.type === type);
      if (index >= 0) return this.messages.splice(index, 1)[0] ?? {};
      if (this.exited) throw new Error(`the client process exited before sending ${type}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} from the client process within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  send(message: Record<string, unknown>): void {
    if (!this.exited && this.child.connected) this.child.send(message);
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.send({ type: 'close' });
    await Promise.race([exited, sleep(3000)]);
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

async function startServer(directory: string): Promise<Server> {
  const { running, client, ca } = await startBenchServer(directory, ['--storage=memory']);
  return { running, client, ca, token: benchToken };
}

const configMap = (name: string) => ({ ...sampleObject(name), metadata: { name, namespace: 'default' } });

/**
 * One fan-out run: `watchers` watches over `protocol` from the current resourceVersion, then `events`
 * sequential creates; the rate is deliveries per second until the last one arrived. A run that opened
 * fewer watchers than asked or timed out throws.
 */
async function fanOutRun(server: Server, protocol: Protocol, run: number, options: { watchers: number; events: number; timeoutMs: number }): Promise<{ rate: number; sessions: number }> {
  const list = await server.client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}?limit=1` });
  const clients = new Clients({ mode: 'watch', protocol, origin: server.running.url, path: `${path}?watch=true&resourceVersion=${list.metadata.resourceVersion}`, ca: server.ca, token: server.token, count: options.watchers });
  try {
    const ready = await clients.next('ready', options.timeoutMs);
    if (Number(ready.open) !== options.watchers) throw new Error(`${protocol}: ${String(ready.open)} of ${options.watchers} watchers opened (${String(ready.failed)} failed)`);
    const started = Date.now();
    const expected = options.watchers * options.events;
    const done = clients.next('done', options.timeoutMs);
    clients.send({ type: 'expect', lines: expected });
    for (let i = 0; i < options.events; i++) await server.client.request({ method: 'POST', path, body: configMap(`h2-${protocol}-${run}-${i}`) });
    const stats = await done;
    const seconds = Math.max(Number(stats.lastAt) - started, 1) / 1000;
    return { rate: Number(stats.lines) / seconds, sessions: Number(ready.sessions) };
  } finally {
    await clients.close();
  }
}

/** One GET run: `concurrency` requests in flight for `durationSeconds` over `protocol`. */
async function getRun(server: Server, protocol: Protocol, options: { concurrency: number; durationSeconds: number }): Promise<{ rate: number; p99: number; sessions: number }> {
  const clients = new Clients({ mode: 'get', protocol, origin: server.running.url, path: `${path}/get-target`, ca: server.ca, token: server.token, count: options.concurrency, durationSeconds: options.durationSeconds });
  try {
    const result = await clients.next('result', options.durationSeconds * 1000 + 30_000);
    if (Number(result.errors) > 0) throw new Error(`${protocol}: ${String(result.errors)} GETs failed`);
    return { rate: Number(result.requestsPerSecond), p99: Number(result.p99), sessions: Number(result.sessions) };
  } finally {
    await clients.close();
  }
}

/** Runs `subject` and `control` alternately `runs` times each; returns each side's runs. */
async function alternate<T>(runs: number, subject: (run: number) => Promise<T>, control: (run: number) => Promise<T>): Promise<{ subjects: T[]; controls: T[] }> {
  const subjects: T[] = [];
  const controls: T[] = [];
  for (let run = 0; run < runs; run++) {
    subjects.push(await subject(run));
    controls.push(await control(run));
  }
  return { subjects, controls };
}

const bestRate = <T extends { rate: number }>(runs: T[]): T => runs.reduce((a, b) => (b.rate > a.rate ? b : a));
const rates = (runs: Array<{ rate: number }>) => runs.map((r) => r.rate.toFixed(0)).join(' / ');

/**
 * The HTTP/2 scenario, on one in-process kube-apiserver-lite (memory storage, watch cache): the same
 * watch fan-out over h2 (streams multiplexed on sessions of 250, as Go's transport) beside h1 (one TLS
 * connection per watch), and GET of one 2 KB object over one h2 session beside h1 keep-alive
 * connections, each pair run alternately, best of 2.
 */
export async function h2Bench(options: { quick: boolean }): Promise<BenchRow[]> {
  const watchers = 1000;
  const events = options.quick ? 100 : 500;
  const concurrency = 64;
  const durationSeconds = options.quick ? 5 : 10;
  const directory = mkdtempSync(join(tmpdir(), 'kapi-h2-bench-'));
  let server: Server | undefined;
  try {
    server = await startServer(directory);
    const started = server;
    await started.client.request({ method: 'POST', path, body: configMap('get-target') });
    const fanOut = { watchers, events, timeoutMs: 120_000 };
    const watch = await alternate(2, (run) => fanOutRun(started, 'h2', run, fanOut), (run) => fanOutRun(started, 'h1', run, fanOut));
    const h2Watch = bestRate(watch.subjects);
    const get = await alternate(2, () => getRun(started, 'h2', { concurrency, durationSeconds }), () => getRun(started, 'h1', { concurrency, durationSeconds }));
    const h2Get = bestRate(get.subjects);
    const h1Get = bestRate(get.controls);
    return [
      {
        ...row(`watch fan-out, ${watchers} watchers, ${events} x 2 KB events, 1 writer`, `HTTP/2 (${h2Watch.sessions} sessions x ${streamsPerSession} streams)`, h2Watch.rate, `HTTP/1.1 (${watchers} TLS connections)`, bestRate(watch.controls).rate, 'deliveries/s', '>= 80%'),
        notes: `best of 2 runs each, alternating (h2 ${rates(watch.subjects)}, h1 ${rates(watch.controls)})`,
      },
      {
        ...row(`GET one 2 KB object, ${concurrency} in flight`, `HTTP/2 (${h2Get.sessions} session)`, h2Get.rate, `HTTP/1.1 (${concurrency} keep-alive connections)`, h1Get.rate, 'req/s'),
        notes: `best of 2 runs each, alternating (h2 ${rates(get.subjects)}, h1 ${rates(get.controls)}); p99 h2 ${h2Get.p99.toFixed(1)} ms, h1 ${h1Get.p99.toFixed(1)} ms`,
      },
    ];
  } finally {
    if (server) {
      server.client.close();
      await server.running.stop().catch((error: unknown) => console.error('[bench] cleanup failed:', error));
    }
    rmSync(directory, { recursive: true, force: true });
  }
}
