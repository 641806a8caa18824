import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { RestClient } from '@kapi/client';
import { parseOptions, startControlPlane } from '@kapi/kube-apiserver-lite';
import { measureMs, row, type BenchRow } from './harness.js';

const execFileAsync = promisify(execFile);
const loadScript = fileURLToPath(new URL('./load-generator.ts', import.meta.url));
const path = '/api/v1/namespaces/default/configmaps';

/** The `fraction` quantile of `values` (nearest rank). */
function quantile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/** `/readyz` latencies (ms), one probe every `intervalMs` until `until` resolves (at least `minimum` probes). */
async function probeReadyz(client: RestClient, intervalMs: number, until: Promise<unknown>, minimum = 0): Promise<number[]> {
  let done = false;
  void until.then(() => (done = true));
  const latencies: number[] = [];
  while (!done || latencies.length < minimum) {
    latencies.push(await measureMs(() => client.raw({ method: 'GET', path: '/readyz' })));
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return latencies;
}

/** A chunked POST whose body arrives one byte every 200 ms and never ends (issue 12's slow client). */
function slowClient(url: string, ca: string, token: string): { request: ClientRequest; timer: NodeJS.Timeout } {
  const target = new URL(path, url);
  const request = httpsRequest({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
    ca,
  });
  request.on('error', () => undefined);
  request.write('{');
  return { request, timer: setInterval(() => request.write(' '), 200) };
}

/**
 * Overload (issue 12): 12 slow-body clients and one normal writer over 10 mutating seats, then the same
 * plus a LIST flood of 64 connections (autocannon, in its own process) over 20 read seats. Subject:
 * `/readyz` latency (a probe every 20 ms) and the writer's success under each load; control: the same
 * probes and writes on the idle server just before. The server runs in this process, as in the http scenario.
 */
export async function overloadBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const durationSeconds = options.quick ? 8 : 20;
  const directory = mkdtempSync(join(tmpdir(), 'kapi-overload-bench-'));
  const tokens = join(directory, 'tokens.csv');
  writeFileSync(tokens, 'writer-token,writer,2001,"writers"\n');
  const running = await startControlPlane(
    parseOptions([
      '--storage=sqlite',
      `--data-dir=${directory}`,
      '--secure-port=0',
      `--token-auth-file=${tokens}`,
      '--authorization-mode=AlwaysAllow',
      '--max-requests-inflight=20',
      '--max-mutating-requests-inflight=10',
    ]),
  );
  const ca = readFileSync(join(directory, 'ca.crt'), 'utf8');
  const client = new RestClient({ server: running.url, token: 'writer-token', ca });
  const slow: Array<{ request: ClientRequest; timer: NodeJS.Timeout }> = [];
  try {
    for (let i = 0; i < 600; i++) {
      if ((await client.raw({ method: 'GET', path: '/readyz' }).catch(() => undefined))?.statusCode === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const writes = async (prefix: string, until: Promise<unknown>) => {
      let done = false;
      void until.then(() => (done = true));
      let attempted = 0;
      let succeeded = 0;
      while (!done) {
        const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${prefix}-${attempted}` }, data: { a: '1' } };
        attempted++;
        const response = await client.raw({ method: 'POST', path, body }).catch(() => undefined);
        if (response && response.statusCode < 300) succeeded++;
      }
      return (100 * succeeded) / Math.max(1, attempted);
    };

    const idleWindow = new Promise((resolve) => setTimeout(resolve, 3000));
    const [idleProbes, idleWrites] = await Promise.all([probeReadyz(client, 20, idleWindow, 100), writes('idle', idleWindow)]);

    for (let i = 0; i < 12; i++) slow.push(slowClient(running.url, ca, 'writer-token'));
    const slowWindow = new Promise((resolve) => setTimeout(resolve, durationSeconds * 1000));
    const [slowProbes, slowWrites] = await Promise.all([probeReadyz(client, 20, slowWindow), writes('slow', slowWindow)]);

    const flood = execFileAsync(
      process.execPath,
      ['--import', 'tsx', loadScript, JSON.stringify({ url: `${running.url}${path}`, connections: 64, durationSeconds, ca, headers: { authorization: 'Bearer writer-token' } })],
      { maxBuffer: 16 << 20 },
    );
    const [floodProbes, floodWrites, floodOutput] = await Promise.all([probeReadyz(client, 20, flood), writes('flood', flood), flood]);
    const floodResult = JSON.parse(floodOutput.stdout.trim().split('\n').pop() ?? '{}') as { statusCodes?: Record<string, number> };
    const refused = floodResult.statusCodes?.['429'] ?? 0;
    const slowSubject = '12 slow bodies + writer';
    const floodSubject = 'slow bodies + writer + 64-connection LIST flood';
    return [
      { ...row('/readyz p99, issue 12 overload', slowSubject, quantile(slowProbes, 0.99), 'idle server', quantile(idleProbes, 0.99), 'ms (lower is better)', '<= 50 ms'), notes: `${slowProbes.length} probes` },
      row('/readyz p50, issue 12 overload', slowSubject, quantile(slowProbes, 0.5), 'idle server', quantile(idleProbes, 0.5), 'ms (lower is better)'),
      row('writer success, issue 12 overload', slowSubject, slowWrites, 'idle server', idleWrites, '% of writes', '>= 99%'),
      { ...row('/readyz p99, plus a read flood', floodSubject, quantile(floodProbes, 0.99), 'idle server', quantile(idleProbes, 0.99), 'ms (lower is better)'), notes: `${floodProbes.length} probes; the flood got ${refused} 429s` },
      row('/readyz p50, plus a read flood', floodSubject, quantile(floodProbes, 0.5), 'idle server', quantile(idleProbes, 0.5), 'ms (lower is better)'),
      row('writer success, plus a read flood', floodSubject, floodWrites, 'idle server', idleWrites, '% of writes'),
    ];
  } finally {
    for (const { request, timer } of slow) {
      clearInterval(timer);
      request.destroy();
    }
    client.close();
    await running.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
