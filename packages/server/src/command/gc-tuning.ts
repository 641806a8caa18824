import { setFlagsFromString } from 'node:v8';

/**
 * Tunes V8's full (mark-compact) collections for a server's latency, as Go's GOGC does for
 * kube-apiserver: `heapGrowthPercent` is how far the old generation may grow past the data that survived
 * the last full collection before the next one starts (100 lets the heap double, as GOGC=100; 0 leaves
 * the growth to V8).
 *
 * V8 sizes the growth for throughput: a server whose writes each replace a cached object promotes little
 * at a time, so V8 grows its heap by as little as 10% (or 8 MB) and runs a full collection, with a
 * main-thread pause of 10-70 ms, every few seconds under steady writes.
 *
 * Process-wide: it applies to the whole process from the next full collection on, whoever started the
 * server. Call it once, before the server takes load.
 */
export function tuneGarbageCollector(heapGrowthPercent: number): void {
  if (!Number.isInteger(heapGrowthPercent) || heapGrowthPercent < 0) {
    throw new RangeError(`heap growth percent must be a non-negative integer, not ${heapGrowthPercent}`);
  }
  setFlagsFromString(`--heap-growing-percent=${heapGrowthPercent}`);
}
