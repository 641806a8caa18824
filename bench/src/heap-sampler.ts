/**
 * Preloaded (`--import`) into a child process whose heap a bench measures; the child runs with
 * `--expose-gc`. On SIGUSR2 (sent when the measured work starts) it records the live heap as the
 * baseline, then every second collects garbage and samples `process.memoryUsage().heapUsed` less V8's
 * code spaces (the functions compiled as the work warms up, and the sources tsx compiles on import, are
 * not data the process holds; their growth is reported apart as `codePeak - codeBaseline`), so the
 * figures are live data, not garbage the young generation has not collected yet (a forced GC costs
 * CPU the measured process then lacks: once a second keeps that small). When the process
 * exits it prints one line `[heap-sampler] {"baseline":..., "peak":..., "codeBaseline":..., "codePeak":..., "baselineBuffers":..., "peakBuffers":..., "cpuMicros":...}`
 * (bytes; the Buffers figures are the memory held by Buffers/ArrayBuffers outside the heap; the
 * process's CPU time, user + system, since the baseline, less the CPU time of the sampler's own forced
 * collections, so that the figure is the measured work's).
 */
import { getHeapSpaceStatistics } from 'node:v8';

const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('heap-sampler needs node --expose-gc');
let peakBuffers = 0;
let baselineBuffers: number | undefined;
/** CPU time (µs) spent in the forced collections since the baseline. */
let collectingMicros = 0;
const live = () => {
  const before = process.cpuUsage();
  collect();
  const spent = process.cpuUsage(before);
  collectingMicros += spent.user + spent.system;
  const usage = process.memoryUsage();
  peakBuffers = Math.max(peakBuffers, usage.arrayBuffers);
  const code = codeBytes();
  codePeak = Math.max(codePeak, code);
  return usage.heapUsed - code;
};
/** Bytes used in V8's code spaces (compiled functions). */
function codeBytes(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) if (space.space_name.startsWith('code_')) bytes += space.space_used_size;
  return bytes;
}
let codeBaseline: number | undefined;
let codePeak = 0;
let baseline: number | undefined;
let peak = 0;
let cpuAtBaseline: NodeJS.CpuUsage | undefined;
process.on('SIGUSR2', () => {
  codePeak = 0;
  baseline = live();
  codeBaseline = codePeak;
  cpuAtBaseline = process.cpuUsage();
  collectingMicros = 0;
  peak = baseline;
  baselineBuffers = peakBuffers = process.memoryUsage().arrayBuffers;
  setInterval(() => (peak = Math.max(peak, live())), 1000).unref();
});
process.on('exit', () => {
  const cpu = process.cpuUsage(cpuAtBaseline);
  process.stdout.write(`[heap-sampler] ${JSON.stringify({ baseline, peak, codeBaseline, codePeak, baselineBuffers, peakBuffers, cpuMicros: cpu.user + cpu.system - collectingMicros })}\n`);
});
