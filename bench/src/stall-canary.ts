import { spawn, type ChildProcess } from 'node:child_process';
import { percentile } from './harness.js';

/** A window (epoch ms) during which an idle process on this machine could not run. */
export interface Stall {
  start: number;
  end: number;
}

/** A sample of a latency series: when its request was sent (epoch ms) and how long it took (ms). */
export interface TimedSample {
  sentAtEpoch: number;
  latency: number;
}

/**
 * An idle process that wakes every millisecond and notes each gap of at least `thresholdMs` between its
 * wake-ups: a window in which the machine itself ran nothing of it (the VM paused by its host, or
 * the kernel stalled), whatever the processes under test were doing. It needs almost no CPU, so the
 * load of a bench's own processes on a 2-vCPU machine delays it by a few ms at most.
 */
export class StallCanary {
  private readonly child: ChildProcess;

  constructor(readonly thresholdMs = 50) {
    this.child = spawn(process.execPath, ['-e', canaryScript, '--', String(thresholdMs)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  }

  /** The stalls seen so far. */
  stalls(): Promise<Stall[]> {
    return new Promise((resolve, reject) => {
      const exited = () => reject(new Error('the stall canary exited'));
      this.child.once('exit', exited);
      this.child.once('message', (message) => {
        this.child.off('exit', exited);
        resolve(message as Stall[]);
      });
      this.child.send('report');
    });
  }

  stop(): void {
    this.child.kill();
  }
}

const canaryScript = `
const { performance } = require('node:perf_hooks');
const threshold = Number(process.argv[process.argv.length - 1]);
const stalls = [];
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last >= threshold) stalls.push({ start: performance.timeOrigin + last, end: performance.timeOrigin + now });
  last = now;
}, 1);
process.on('message', () => process.send(stalls));
process.on('disconnect', () => process.exit(0));
`;

/** Whether `sample` was in flight during one of `stalls`. */
function inStall(sample: TimedSample, stalls: readonly Stall[]): boolean {
  return stalls.some((stall) => stall.start < sample.sentAtEpoch + sample.latency && stall.end > sample.sentAtEpoch);
}

/** Stalls that overlap any of `windows` (epoch ms): their count, longest and total (ms), as text. */
export function describeStalls(stalls: readonly Stall[], windows: ReadonlyArray<readonly [number, number]>): string {
  const within = stalls.filter((stall) => windows.some(([start, end]) => stall.start < end && stall.end > start));
  if (within.length === 0) return 'none';
  const lengths = within.map((stall) => stall.end - stall.start);
  return `${within.length}, longest ${Math.max(...lengths).toFixed(0)} ms, ${lengths.reduce((sum, length) => sum + length, 0).toFixed(0)} ms in all`;
}

/** The p99s of two kinds of phase without the samples in flight during stalls, and how many were left out. */
export interface SteadyP99 {
  idle: number;
  during: number;
  /** Samples left out, of both kinds. */
  leftOut: number;
  /** The same, in words. */
  left: string;
}

/** {@link SteadyP99} of `idle` and `during` (whose samples `what` names, e.g. "migrating PUTs"). */
export function steadyP99(idle: readonly TimedSample[], during: readonly TimedSample[], stalls: readonly Stall[], what: string): SteadyP99 {
  const steady = (samples: readonly TimedSample[]) => samples.filter((sample) => !inStall(sample, stalls));
  const p99 = (samples: readonly TimedSample[]) => percentile(samples.map((sample) => sample.latency), 99);
  const [steadyIdle, steadyDuring] = [steady(idle), steady(during)];
  const [idleLeft, duringLeft] = [idle.length - steadyIdle.length, during.length - steadyDuring.length];
  return { idle: p99(steadyIdle), during: p99(steadyDuring), leftOut: idleLeft + duringLeft, left: `${idleLeft} idle and ${duringLeft} ${what} of ${idle.length + during.length}` };
}
