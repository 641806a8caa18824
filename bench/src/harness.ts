import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One measured row: a subject beside its control, both in the same run. */
export interface BenchRow {
  scenario: string;
  subject: string;
  control: string;
  unit: string;
  subjectValue: number;
  controlValue: number;
  /** subject / control (for rates: higher is better; for latencies the table says so in the unit). */
  ratio: number;
  target?: string;
  notes?: string;
}

/** Runs `operation` `total` times with `concurrency` in flight; returns operations per second. */
export async function measureRate(total: number, concurrency: number, operation: (index: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= total) return;
      await operation(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return total / seconds;
}

/**
 * Runs `operation` with `concurrency` in flight for `seconds` (no new operation starts after that); returns
 * operations per second. For a control run beside a load measured over the same time, not a fixed count
 * that a fast backend finishes in a fraction of a second.
 */
export async function measureRateFor(seconds: number, concurrency: number, operation: () => Promise<unknown>): Promise<number> {
  let completed = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      await operation();
      completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return completed / (Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * Control and subject measured twice each, alternately (control, subject, control, subject), keeping each
 * one's best (`better` picks it: the higher rate by default): on a shared VM throughput drifts within
 * minutes, and alternating keeps a drift from favouring either side.
 */
export async function alternate<T>(
  control: () => Promise<T>,
  subject: () => Promise<T>,
  better: (a: T, b: T) => boolean = (a, b) => (a as number) > (b as number),
): Promise<{ control: T; subject: T }> {
  const best = (a: T, b: T) => (better(b, a) ? b : a);
  const control1 = await control();
  const subject1 = await subject();
  const control2 = await control();
  const subject2 = await subject();
  return { control: best(control1, control2), subject: best(subject1, subject2) };
}

/** Times one async call in milliseconds. */
export async function measureMs(operation: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await operation();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** A 2 KB-ish ConfigMap-like object. */
export function sampleObject(name: string, size = 2048): { apiVersion: string; kind: string; metadata: { name: string; namespace: string }; data: Record<string, string> } {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench' }, data: { payload: 'x'.repeat(size) } };
}

const format = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

/** Prints rows as a table. */
export function printTable(title: string, rows: BenchRow[]): void {
  console.log(`\n## ${title}\n`);
  const header = ['scenario', 'subject', 'value', 'control', 'value', 'unit', 'ratio', 'target'];
  const lines = rows.map((row) => [
    row.scenario,
    row.subject,
    format(row.subjectValue),
    row.control,
    format(row.controlValue),
    row.unit,
    `${(row.ratio * 100).toFixed(0)}%`,
    row.target ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const render = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(render(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const line of lines) console.log(render(line));
}

/** Writes rows to bench/results/<name>.json (not committed). */
export function writeResults(name: string, rows: BenchRow[]): string {
  const directory = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${name}.json`);
  writeFileSync(path, JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2));
  return path;
}

/** A row from a subject and a control rate. */
export function row(scenario: string, subject: string, subjectValue: number, control: string, controlValue: number, unit: string, target?: string): BenchRow {
  return { scenario, subject, control, unit, subjectValue, controlValue, ratio: subjectValue / controlValue, ...(target ? { target } : {}) };
}

/** The p-th percentile (nearest rank) of `values`; NaN when empty. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

let collect: (() => void) | undefined;

/** heapUsed + external (Buffers) after full collections (exposes `gc` on first use, no flag needed). */
export async function usedMemory(): Promise<number> {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}
