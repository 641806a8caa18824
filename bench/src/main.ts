import { parseOptions } from '@kapi/kube-apiserver-lite';
import { tuneGarbageCollector } from '@kapi/server';
import { printTable, writeResults, type BenchRow } from './harness.js';
import { getBench, httpBench } from './http-bench.js';
import { storageBench } from './storage-bench.js';

/**
 * `pnpm bench [--quick] [scenario...]`: runs the scenarios listed below (or those named), each beside its control,
 * prints tables and writes bench/results/<scenario>.json.
 */
const args = process.argv.slice(2);
// The servers under test run in this process: tune its collector as kube-apiserver-lite's main does (the
// --gc-heap-growth-percent default). The controls measured in this process run with the same tuning.
tuneGarbageCollector(parseOptions([]).gcHeapGrowthPercent);
const quick = args.includes('--quick');
const wanted = args.filter((arg) => !arg.startsWith('--'));
const scenarios: Record<string, () => Promise<BenchRow[]>> = {
  storage: () => storageBench({ quick }),
  http: () => httpBench({ quick }),
  get: () => getBench({ quick }),
  watch: async () => (await import('./watch-bench.js')).watchBench({ quick }),
  overload: async () => (await import('./overload-bench.js')).overloadBench({ quick }),
  aggregator: async () => (await import('./aggregator-bench.js')).aggregatorBench({ quick }),
  migrator: async () => (await import('./migrator-bench.js')).migratorBench({ quick }),
  h2: async () => (await import('./h2-bench.js')).h2Bench({ quick }),
  crd: async () => (await import('./crd-bench.js')).crdBench({ quick }),
  scale: async () => (await import('./scale-bench.js')).scaleBench({ quick }),
};

/** Scenarios that threw or reported a FAILED row: any makes the run exit non-zero. */
const failed: string[] = [];
for (const [name, run] of Object.entries(scenarios)) {
  if (wanted.length && !wanted.includes(name)) continue;
  console.log(`[bench] ${name}`);
  try {
    const rows = await run();
    printTable(name, rows);
    console.log(`[bench] wrote ${writeResults(name, rows)}`);
    for (const entry of rows) if (entry.subject === 'FAILED') failed.push(`${name}: ${entry.scenario}`);
  } catch (error) {
    console.error(`[bench] ${name} failed:`, error);
    failed.push(name);
  }
}
if (failed.length) console.error(`[bench] FAILED: ${failed.join('; ')}`);
process.exit(failed.length ? 1 : 0);
