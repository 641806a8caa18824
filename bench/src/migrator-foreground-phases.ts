import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver, constants as perfConstants, monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { sleep, type RestClient } from '@kapi/client';
import { MigrationController } from '@kapi/migrator';
import { percentile } from './harness.js';
import type { ForegroundSample } from './migrator-foreground-client.js';
import { StallCanary, describeStalls, steadyP99 } from './stall-canary.js';

/**
 * The migrator scenario's foreground phases (migrator-bench.ts): open-loop PUTs from their own process,
 * in alternating phases without and with a throttled in-process migration, with the server's event-loop
 * delay, GC pauses, disk commits and CPU for each kind of phase.
 */

/** Where the foreground writes and the migration runs, and at what rates. */
export interface ForegroundSetup {
  /** The ConfigMaps collection the PUTs go to, and its namespace. */
  path: string;
  namespace: string;
  migrationsPath: string;
  /** The throttled migration's writes a second. */
  throttledQps: number;
  /** A foreground PUT every this many ms. */
  intervalMs: number;
}

const foregroundScript = fileURLToPath(new URL('./migrator-foreground-client.ts', import.meta.url));

/** What the foreground writer answers: ready once, then each phase's samples (or its error). */
type WriterMessage = { ready?: boolean; samples?: ForegroundSample[]; error?: string };

/** The foreground writer's process (migrator-foreground-client.ts): one phase of open-loop PUTs per call. */
class ForegroundWriter {
  private readonly child: ChildProcess;
  private readonly answers: Array<{ resolve: (message: WriterMessage) => void; reject: (error: Error) => void }> = [];

  constructor(client: RestClient, setup: ForegroundSetup) {
    const { server, token, ca } = client.config;
    const { path, namespace, intervalMs } = setup;
    this.child = fork(foregroundScript, [JSON.stringify({ server, token, ca, path, namespace, intervalMs })], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message) => this.answers.shift()?.resolve(message as WriterMessage));
    this.child.on('exit', (code) => {
      for (const answer of this.answers.splice(0)) answer.reject(new Error(`the foreground writer exited (${String(code)})`));
    });
  }

  private next(): Promise<WriterMessage> {
    return new Promise((resolve, reject) => this.answers.push({ resolve, reject }));
  }

  ready(): Promise<unknown> {
    return this.next();
  }

  /** One phase of `seconds`: the PUTs' samples. */
  async phase(seconds: number): Promise<ForegroundSample[]> {
    const answer = this.next();
    this.child.send({ seconds });
    const { samples, error } = await answer;
    if (!samples) throw new Error(`foreground writer: ${error ?? 'no samples'}`);
    return samples;
  }

  stop(): void {
    this.child.send({ stop: true });
  }
}

/** Disk commits so far: their count and, where the store reports it, a histogram of their fsync times. */
interface Commits {
  count: number;
  /** Cumulative bucket counts by upper bound (seconds), as Prometheus histograms give them. */
  buckets?: Map<number, number>;
  /** etcd: the same for its backend (bbolt) commits, which fsync too. */
  backendCommits?: Map<number, number>;
}

/** Bucket bound (s) from which a disk commit counts as a stall: PUTs behind it wait as long. */
const slowCommitSeconds = 0.128;

/** Observations above `slowCommitSeconds` in a histogram's bucket deltas (+Inf is the total); 0 without that bucket. */
function slowCount(after: Map<number, number> | undefined, before: Map<number, number> | undefined): number {
  if (!after?.has(slowCommitSeconds) || !after.has(Infinity)) return 0;
  const delta = (bound: number) => (after.get(bound) ?? 0) - (before?.get(bound) ?? 0);
  return delta(Infinity) - delta(slowCommitSeconds);
}

/**
 * The disk commits behind the foreground's writes: the server's SQLite write transactions (one fsync each),
 * or, on etcd, etcd's own WAL fsyncs (`etcd_disk_wal_fsync_duration_seconds` from its /metrics), which
 * every write waits for whoever sent the others in the same batch.
 */
async function diskCommits(client: RestClient, etcdEndpoint: string | undefined): Promise<Commits | undefined> {
  if (etcdEndpoint) {
    const metrics = await (await fetch(`${etcdEndpoint}/metrics`)).text();
    const histogram = (name: string) => new Map([...metrics.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`, 'gm'))].map((match) => [match[1] === '+Inf' ? Infinity : Number(match[1]), Number(match[2])]));
    const count = /^etcd_disk_wal_fsync_duration_seconds_count (\d+)/m.exec(metrics);
    return count ? { count: Number(count[1]), buckets: histogram('etcd_disk_wal_fsync_duration_seconds'), backendCommits: histogram('etcd_disk_backend_commit_duration_seconds') } : undefined;
  }
  const metrics = (await client.raw({ method: 'GET', path: '/metrics' })).body.toString('utf8');
  const line = /^kapi_sqlite_write_transactions_total (\d+)/m.exec(metrics);
  return line ? { count: Number(line[1]) } : undefined;
}

/** The commits of one kind of phase, summed over its phases: rate and (etcd) fsync p99 from the bucket deltas. */
class CommitTally {
  private count = 0;
  private seconds = 0;
  private readonly buckets = new Map<number, number>();
  private slow = 0;
  private slowBackend = 0;

  add(before: Commits | undefined, after: Commits | undefined, seconds: number): void {
    if (!before || !after) return;
    this.count += after.count - before.count;
    this.seconds += seconds;
    this.slow += slowCount(after.buckets, before.buckets);
    this.slowBackend += slowCount(after.backendCommits, before.backendCommits);
    for (const [bound, total] of after.buckets ?? []) this.buckets.set(bound, (this.buckets.get(bound) ?? 0) + total - (before.buckets?.get(bound) ?? 0));
  }

  toString(): string {
    if (this.seconds === 0) return 'n/a';
    const rate = `${(this.count / this.seconds).toFixed(0)}/s`;
    const bound = [...this.buckets].sort(([left], [right]) => left - right).find(([, cumulative]) => cumulative >= 0.99 * this.count)?.[0];
    if (bound === undefined) return rate;
    return `${rate}, fsync p99 <= ${(bound * 1000).toFixed(0)} ms, > ${slowCommitSeconds * 1000} ms: ${this.slow} WAL fsyncs and ${this.slowBackend} backend commits`;
  }
}

/** Sampling interval of the event-loop delay histogram (ms). */
const loopResolutionMs = 5;

/**
 * The server's event-loop delay (it runs in this process) over the phases of one kind: each phase's p99
 * and max (ms). Node's histogram records each whole interval between its timer's runs, so the timer's own
 * resolution is taken off to leave the delay.
 */
class LoopDelay {
  private readonly phases: Array<{ p99: number; max: number }> = [];
  record(histogram: IntervalHistogram): void {
    const delay = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - loopResolutionMs);
    this.phases.push({ p99: delay(histogram.percentile(99)), max: delay(histogram.max) });
  }
  toString(): string {
    const worst = (pick: (phase: { p99: number; max: number }) => number) => Math.max(0, ...this.phases.map(pick)).toFixed(1);
    return `p99 ${worst((phase) => phase.p99)} ms, max ${worst((phase) => phase.max)} ms (worst phase)`;
  }
}

/** Settling time before each phase is measured: the migration's start (discovery, first LIST) is not its steady state. */
const phaseSettleMs = 1000;

/**
 * Foreground write p99 without and with a migration throttled to 40 qps (the server's own in-process
 * migrator, as kube-apiserver-lite runs it by default; the PUTs from their own process, as a cluster's
 * clients are), in alternating phases so that load drifts on a
 * shared machine hit both sides alike. Each phase is measured after the migration has started (or
 * stopped) and settled; the event-loop delay histogram is reset, not disabled, between phases (a disabled
 * one counts the whole pause as one delay when enabled again).
 */
export async function foregroundP99(client: RestClient, migratorClient: RestClient, setup: ForegroundSetup, phases: number, seconds: number, etcdEndpoint: string | undefined) {
  const idle: ForegroundSample[] = [];
  const during: ForegroundSample[] = [];
  const { migrationsPath, throttledQps } = setup;
  const writer = new ForegroundWriter(client, setup);
  await writer.ready();
  const canary = new StallCanary();
  const histogram = monitorEventLoopDelay({ resolution: loopResolutionMs });
  const idleLoop = new LoopDelay();
  const duringLoop = new LoopDelay();
  // GC pauses of this process (the server and its in-process migrator), to line up with the slowest PUTs.
  // GC pauses on the epoch clock (the foreground writer's samples are too).
  const pauses: Array<{ start: number; duration: number; major: boolean }> = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      pauses.push({ start: performance.timeOrigin + entry.startTime, duration: entry.duration, major: kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR });
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const phaseWindows = { idle: [] as Array<[number, number]>, during: [] as Array<[number, number]> };
  histogram.enable();
  // Disk commits in each kind of phase (each is one fsync the foreground may wait behind).
  const commits = { idle: new CommitTally(), during: new CommitTally() };
  // This process's CPU (the server and its in-process migrator), µs per kind of phase.
  const cpu = { idle: 0, during: 0 };
  const measure = async (into: ForegroundSample[], loop: LoopDelay, kind: 'idle' | 'during') => {
    await sleep(phaseSettleMs);
    histogram.reset();
    const before = await diskCommits(client, etcdEndpoint);
    const windowStart = performance.timeOrigin + performance.now();
    const cpuBefore = process.cpuUsage();
    into.push(...(await writer.phase(seconds)));
    const used = process.cpuUsage(cpuBefore);
    cpu[kind] += used.user + used.system;
    phaseWindows[kind].push([windowStart, performance.timeOrigin + performance.now()]);
    commits[kind].add(before, await diskCommits(client, etcdEndpoint), seconds);
    loop.record(histogram);
  };
  await client.request({ method: 'POST', path: migrationsPath, body: { metadata: { name: 'rotate-40qps' }, spec: { resource: { group: '', resource: 'configmaps' } } } });
  for (let phase = 0; phase < phases; phase++) {
    await measure(idle, idleLoop, 'idle');
    // As kube-apiserver-lite's in-process migrator is configured (its requests served in process).
    const controller = new MigrationController({ rest: migratorClient, qps: throttledQps, burst: 1, http2: false });
    controller.start();
    await measure(during, duringLoop, 'during');
    await controller.stop();
  }
  histogram.disable();
  gcObserver.disconnect();
  writer.stop();
  const stalls = await canary.stalls();
  canary.stop();
  // The GC pause (ms, the longest) that overlapped a PUT in flight.
  const gcDuring = (sample: ForegroundSample) =>
    Math.max(0, ...pauses.filter((pause) => pause.start < sample.sentAtEpoch + sample.latency && pause.start + pause.duration > sample.sentAtEpoch).map((pause) => pause.duration));
  const worst = (samples: ForegroundSample[]) =>
    [...samples]
      .sort((left, right) => right.latency - left.latency)
      .slice(0, 5)
      .map((sample) => `${sample.latency.toFixed(0)} ms at +${(sample.sentAt / 1000).toFixed(1)} s (GC ${gcDuring(sample).toFixed(0)} ms)`)
      .join(', ');
  const gcText = (kind: 'idle' | 'during') => {
    const inPhases = pauses.filter((pause) => phaseWindows[kind].some(([start, end]) => pause.start >= start && pause.start < end));
    const seconds = phaseWindows[kind].reduce((sum, [start, end]) => sum + (end - start), 0) / 1000;
    const total = inPhases.reduce((sum, pause) => sum + pause.duration, 0);
    const majors = inPhases.filter((pause) => pause.major);
    return `GC ${(total / seconds).toFixed(1)} ms/s, max ${Math.max(0, ...inPhases.map((pause) => pause.duration)).toFixed(0)} ms, ${majors.length} major (max ${Math.max(0, ...majors.map((pause) => pause.duration)).toFixed(0)} ms)`;
  };
  console.log(`[bench] migrator: GC idle: ${gcText('idle')}; migrating: ${gcText('during')}`);
  const commitRates = `; ${etcdEndpoint ? "etcd's WAL fsyncs" : 'SQLite commits'} idle ${String(commits.idle)}, migrating ${String(commits.during)}`;
  console.log(`[bench] migrator: slowest foreground PUTs idle: ${worst(idle)}; migrating: ${worst(during)}${commitRates}`);
  const spread = (samples: ForegroundSample[]) => [50, 90, 95, 99].map((p) => `p${p} ${percentile(samples.map((sample) => sample.latency), p).toFixed(1)}`).join(', ');
  const cpuRate = (kind: 'idle' | 'during') => (cpu[kind] / 1000 / (phaseWindows[kind].reduce((sum, [start, end]) => sum + (end - start), 0) / 1000)).toFixed(0);
  const cpuText = `server CPU idle ${cpuRate('idle')} ms/s, migrating ${cpuRate('during')} ms/s`;
  console.log(`[bench] migrator: foreground PUT ms idle ${spread(idle)}; migrating ${spread(during)}; ${cpuText}`);
  return {
    idle: percentile(idle.map((sample) => sample.latency), 99),
    during: percentile(during.map((sample) => sample.latency), 99),
    samples: Math.min(idle.length, during.length),
    steady: steadyP99(idle, during, stalls, 'migrating PUTs'),
    stalls: `idle phases: ${describeStalls(stalls, phaseWindows.idle)}; migrating phases: ${describeStalls(stalls, phaseWindows.during)}`,
    loop: `event-loop delay idle ${String(idleLoop)}; migrating ${String(duringLoop)}`,
    commits: commitRates,
    cpu: cpuText,
  };
}
