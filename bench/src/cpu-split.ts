import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

/** The kernel's USER_HZ, what /proc reports CPU times in (100 on Linux). */
const clockTicksPerSecond = 100;

/** Where this process's CPU went during a measured run, in µs. */
export interface CpuSplit {
  /** User + system CPU of the main thread (the event loop: HTTP, TLS, the handlers). */
  mainThread: number;
  /** Time the main thread spent paused in V8 garbage collections (scavenges and mark-compact pauses). */
  gcPauses: number;
}

/**
 * Starts measuring the main thread's CPU (from /proc, 10 ms ticks: use runs of seconds) and its GC
 * pauses; the returned function stops and reports. Beside the process's whole CPU it shows how much of
 * a server's cost is the event loop, how much of that is garbage collection, and how much runs on other
 * threads (a storage writer thread, V8's GC helpers). On a system without /proc the main thread reads 0.
 */
export function startCpuSplit(): () => CpuSplit {
  let gcPauses = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPauses += entry.duration * 1000;
  });
  observer.observe({ entryTypes: ['gc'] });
  const before = mainThreadMicros();
  return () => {
    for (const entry of observer.takeRecords()) gcPauses += entry.duration * 1000;
    observer.disconnect();
    return { mainThread: mainThreadMicros() - before, gcPauses };
  };
}

function mainThreadMicros(): number {
  try {
    // The main thread's task id is the process id. Fields after the command name: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicksPerSecond;
  } catch {
    return 0;
  }
}
