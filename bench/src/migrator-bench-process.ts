import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from '@kapi/client';

const here = fileURLToPath(new URL('.', import.meta.url));
const migratorMain = resolve(here, '../../apps/storage-version-migrator/src/main.ts');

/** The standalone storage-version-migrator, started from source with the heap sampler (heap-sampler.ts) preloaded. */
export interface MigratorProcess {
  /** Rejects if the process exits before `stop()` is called (a crashed migrator must fail the scenario, not hang it). */
  readonly died: Promise<never>;
  /** Starts the heap sampling (the live heap now is the baseline). */
  startSampling(): void;
  /** SIGTERM (it stops after its current page's writes), then its heap figures in bytes (live heap less V8 code spaces, and how much the code spaces grew) and its CPU time (µs) since sampling started. */
  stop(): Promise<{ baseline: number; peak: number; codeGrowth: number; baselineBuffers: number; peakBuffers: number; cpuMicros: number }>;
}

/**
 * Starts apps/storage-version-migrator with `flags` and waits until it runs. With
 * KAPI_BENCH_PROFILE set (a directory), the process writes a CPU profile there when it exits.
 */
export async function startMigratorProcess(flags: string[]): Promise<MigratorProcess> {
  const profile = process.env.KAPI_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.KAPI_BENCH_PROFILE}`] : [];
  const child = spawn(
    process.execPath,
    [...profile, '--expose-gc', '--conditions=@kapi/source', '--import', 'tsx', '--import', join(here, 'heap-sampler.ts'), migratorMain, ...flags],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1' } },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  let stopping = false;
  const died = exited.then(() => {
    if (!stopping) throw new Error(`the storage-version-migrator exited (code ${String(child.exitCode)}, signal ${String(child.signalCode)}):\n${output}`);
    return new Promise<never>(() => undefined);
  });
  // Observed by whoever races it; never an unhandled rejection on its own.
  died.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  while (!output.includes('running (qps')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the storage-version-migrator did not start:\n${output}`);
    }
    await sleep(50);
  }
  return {
    died,
    startSampling: () => child.kill('SIGUSR2'),
    stop: async () => {
      stopping = true;
      child.kill('SIGTERM');
      await exited;
      const line = /\[heap-sampler\] (\{.*\})/.exec(output)?.[1];
      const heap = line ? (JSON.parse(line) as { baseline?: number; peak: number; codeBaseline: number; codePeak: number; baselineBuffers: number; peakBuffers: number; cpuMicros: number }) : undefined;
      if (heap?.baseline === undefined) throw new Error(`the storage-version-migrator printed no heap figures:\n${output}`);
      return { baseline: heap.baseline, peak: heap.peak, codeGrowth: heap.codePeak - heap.codeBaseline, baselineBuffers: heap.baselineBuffers, peakBuffers: heap.peakBuffers, cpuMicros: heap.cpuMicros };
    },
  };
}
