import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { chainCpuPerGet } from './chain-cpu.js';
import { profiled } from './cpu-profile.js';
import { row, type BenchRow } from './harness.js';
import { bareServer, warmedLoad, type startServer } from './http-bench.js';

type RunningBench = Awaited<ReturnType<typeof startServer>>;
type Measured = Awaited<ReturnType<typeof warmedLoad>>;

/**
 * A bare node:https server answering with `body` as {@link bareServer} does, after spending `micros` of
 * CPU in a busy loop per request: what a server whose handler costs that much reaches on this machine,
 * whatever its code. Beside the apiserver it separates the cost of our handler's CPU (amplified by the
 * event loop and the kernel: fewer requests per loop turn, a load generator more often asleep) from a
 * misuse of node's http/TLS stack, which would make ours slower than this control.
 */
async function spinningServer(body: Buffer, tls: { key: string; cert: string }, micros: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (_request, response) => {
    const until = performance.now() + micros / 1000;
    while (performance.now() < until);
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length, 'Cache-Control': 'no-cache, private' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Runs each of `runs` twice in turn, keeping each one's best (as `alternately` does for two). */
async function bestOfAlternated<T extends { requestsPerSecond: number }>(runs: Array<() => Promise<T>>): Promise<T[]> {
  const best: T[] = [];
  for (let round = 0; round < 2; round++)
    for (const [index, run] of runs.entries()) {
      const result = await run();
      const kept = best[index];
      if (!kept || result.requestsPerSecond > kept.requestsPerSecond) best[index] = result;
    }
  return best;
}

/**
 * GET of one 2 KB object at 100 connections: the apiserver, bare node:https sending the same bytes, and
 * bare node:https spending the handler chain's in-process CPU per request ({@link spinningServer}),
 * alternated. With `KAPI_BENCH_PROFILE=<dir>` each run is CPU-profiled (`get-<server>-<n>.cpuprofile`;
 * compare them per request with `src/profile-diff.ts`).
 */
export async function getRows(server: RunningBench, path: string, bytes: Buffer, tls: { key: string; cert: string }, durationSeconds: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // The chain's own CPU first: the spinning control spends as much per request.
  const chain = await chainCpuPerGet(server.running.server.handler, path, { authorization: server.headers.authorization }, bytes);
  const chainMicros = Math.max(0, chain.subject - chain.control);
  const control = await bareServer(bytes, tls);
  const spinning = await spinningServer(bytes, tls, chainMicros);
  const spec = { connections: 100, durationSeconds, ca: server.ca };
  // Profiled (with KAPI_BENCH_PROFILE) over the measured part only; the request count goes with the profile.
  const measured = async (name: string, url: string, headers?: Record<string, string>) => {
    const result = await warmedLoad({ ...spec, url, ...(headers ? { headers } : {}) }, (run) => profiled(name, run));
    if (process.env.KAPI_BENCH_PROFILE) console.log(`[bench] ${name}: ${Math.round(result.requestsPerSecond * durationSeconds)} requests profiled`);
    return result;
  };
  const [bare, spun, get] = (await bestOfAlternated([
    () => measured('get-bare', `${control.url}${path}`),
    () => measured('get-bare-spinning', `${spinning.url}${path}`),
    () => measured('get-apiserver', `${server.running.url}${path}`, server.headers),
  ])) as [Measured, Measured, Measured];
  await control.close();
  await spinning.close();
  const spinningName = `bare node:https + ${chainMicros.toFixed(0)} µs busy loop`;
  rows.push(row('GET one 2 KB object, 100 connections', 'kube-apiserver-lite', get.requestsPerSecond, 'bare node:https, same bytes', bare.requestsPerSecond, 'req/s', '>= 70%'));
  rows.push({ ...row('GET p99 latency, 100 connections', 'kube-apiserver-lite', get.latencyP99, 'bare node:https', bare.latencyP99, 'ms (lower is better)', '<= 10 ms'), ratio: get.latencyP99 / bare.latencyP99 });
  // The load generator shares the machine (and saturates a vCPU against the bare server), so the server's
  // own CPU per request is shown too; the ratio is bare / ours (the share of the bare server's efficiency).
  rows.push({ ...row('server CPU per GET, 100 connections', 'kube-apiserver-lite', get.cpuMicrosPerRequest, 'bare node:https', bare.cpuMicrosPerRequest, 'µs/request (lower is better)'), ratio: bare.cpuMicrosPerRequest / get.cpuMicrosPerRequest });
  rows.push({
    ...row('handler chain + GET handler CPU per GET, in process (no sockets, no TLS)', 'kube-apiserver-lite handler', chain.subject, 'writeHead + end of the same bytes', chain.control, 'µs/request (lower is better)'),
    ratio: chain.control / chain.subject,
    notes: "node's request/response objects handed to the server's handler in this process: the apiserver's own per-GET cost, least sensitive to the machine's load (best of 3 alternated runs)",
  });
  rows.push({
    ...row("GET when a bare server spends the chain's CPU, 100 connections", spinningName, spun.requestsPerSecond, 'bare node:https, same bytes', bare.requestsPerSecond, 'req/s'),
    notes: `the same bytes after a busy loop as long as the handler chain's in-process CPU above: the rate any server with that per-request cost reaches here (CPU per GET ${spun.cpuMicrosPerRequest.toFixed(0)} µs, p99 ${spun.latencyP99} ms)`,
  });
  rows.push({
    ...row('GET vs a bare server spending the same CPU, 100 connections', 'kube-apiserver-lite', get.requestsPerSecond, spinningName, spun.requestsPerSecond, 'req/s'),
    notes: "below 100%: the apiserver costs more per GET over TLS than its in-process handler CPU (node internals, timers, GC, syscalls)",
  });
  return rows;
}
