import { spawn, type ChildProcess } from 'node:child_process';

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
      this.child.once('message', (message) => resolve(message as Stall[]));
      this.child.once('exit', () => reject(new Error('the stall canary exited')));
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
export function inStall(sample: TimedSample, stalls: readonly Stall[]): boolean {
  return stalls.some((stall) => stall.start < sample.sentAtEpoch + sample.latency && stall.end > sample.sentAtEpoch);
}

/** Stalls that overlap any of `windows` (epoch ms): their count, longest and total (ms), as text. */
export function describeStalls(stalls: readonly Stall[], windows: ReadonlyArray<readonly [number, number]>): string {
  const within = stalls.filter((stall) => windows.some(([start, end]) => stall.start < end && stall.end > start));
  if (within.length === 0) return 'none';
  const lengths = within.map((stall) => stall.end - stall.start);
  return `${within.length}, longest ${Math.max(...lengths).toFixed(0)} ms, ${lengths.reduce((sum, length) => sum + length, 0).toFixed(0)} ms in all`;
}
