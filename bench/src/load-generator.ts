import autocannon from 'autocannon';

/**
 * Runs autocannon in its own process (spawned by the HTTP scenarios) so the load generator never shares an
 * event loop with the server it measures. Input: one JSON argument; output: one JSON line.
 */
interface LoadSpec {
  url: string;
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests in all (instead of after the duration). */
  amount?: number;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  ca?: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.durationSeconds,
  ...(spec.amount ? { amount: spec.amount } : {}),
  method: spec.method ?? 'GET',
  ...(spec.body ? { body: spec.body } : {}),
  headers: spec.headers ?? {},
  ...(spec.ca ? { tlsOptions: { ca: spec.ca } } : {}),
});
const statusCodes = result.statusCodeStats as unknown as Record<string, { count: number }> | undefined;
console.log(
  JSON.stringify({
    requestsPerSecond: result.requests.average,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(statusCodes ?? {}).map(([code, stats]) => [code, stats.count])),
  }),
);
