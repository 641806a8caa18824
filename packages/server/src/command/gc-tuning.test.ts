import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tuneGarbageCollector } from './gc-tuning.js';

const module = fileURLToPath(new URL('./gc-tuning.ts', import.meta.url));

/**
 * Full collections in a child process that keeps ~20 MB live and replaces it 30 times over (every
 * replacement outlives the young generation, so the old one takes ~600 MB in all), after
 * tuneGarbageCollector(percent).
 */
function fullCollections(percent: number): number {
  const script = `
    const { tuneGarbageCollector } = await import(${JSON.stringify(module)});
    const { PerformanceObserver, constants } = await import('node:perf_hooks');
    tuneGarbageCollector(${percent});
    let majors = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors += 1;
    }).observe({ entryTypes: ['gc'] });
    const live = new Array(10000);
    const make = (i) => ({ text: 'x'.repeat(64) + i, parts: Array.from({ length: 16 }, (_, k) => ({ k, s: String(k * i) })) });
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < live.length; i++) live[i] = make(i + round);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.stdout.write(String(majors));
  `;
  return Number(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('tuneGarbageCollector', () => {
  it('changes how often V8 runs full collections', () => {
    const tight = fullCollections(5);
    const loose = fullCollections(400);
    expect(tight).toBeGreaterThan(loose * 2);
  }, 60_000);

  it('refuses a negative or fractional percent', () => {
    expect(() => tuneGarbageCollector(-1)).toThrow(RangeError);
    expect(() => tuneGarbageCollector(1.5)).toThrow(RangeError);
  });
});
