import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RestClient } from '@kapi/client';
import { parseOptions, startControlPlane } from '@kapi/kube-apiserver-lite';
import { generateCertificateAuthority, issueServingCertificate } from '@kapi/server';
import { percentile, row, sampleObject, type BenchRow } from './harness.js';
import type { BackendWorkerData } from './aggregated-backend-worker.js';
import { profiled } from './cpu-profile.js';
import { alternately, warmedLoad } from './http-bench.js';
import { startWardle } from './wardle-process.js';

const group = 'wardle.example.com';
const itemPath = `/apis/${group}/v1alpha1/namespaces/default/flunders/two-kb`;
const watchPath = `/apis/${group}/v1alpha1/namespaces/default/flunders?watch=true`;

/** What the worker backend has served so far. */
interface BackendCounts {
  handshakes: number;
  requests: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the aggregated backend in a worker thread (see aggregated-backend-worker.ts); resolves with its port. */
async function startBackend(data: BackendWorkerData) {
  // Workers do not inherit the tsx loader on Node 20: register it in the worker, then load the TypeScript entry.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./aggregated-backend-worker.ts', import.meta.url).href);
  const worker = new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${entry}); });`, { eval: true, workerData: data });
  let watches = 0;
  const sent = new Map<string, bigint>();
  let countsWaiter: ((counts: BackendCounts) => void) | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    worker.on('message', (message: { port?: number; watches?: number; sent?: string; at?: bigint; counts?: BackendCounts }) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.counts !== undefined) countsWaiter?.(message.counts);
      if (message.watches !== undefined) watches = message.watches;
      if (message.sent !== undefined && message.at !== undefined) sent.set(message.sent, message.at);
    });
    worker.once('error', reject);
  });
  return {
    port,
    watchCount: () => watches,
    /** When the backend wrote each event (`process.hrtime`), by name. */
    sent,
    /** TLS handshakes and requests the backend has served so far. */
    counts: () =>
      new Promise<BackendCounts>((resolve) => {
        countsWaiter = resolve;
        worker.postMessage({ counts: true });
      }),
    write: (name: string, line: string) => worker.postMessage({ name, line }),
    close: () => new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage({ close: true });
    }),
  };
}

/** Opens a watch at `url`; calls `onLine` with each line's arrival time (hrtime ns) and text. */
function openWatch(url: string, options: { ca: string; headers?: Record<string, string> }, onLine: (arrived: bigint, line: string) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { ca: options.ca, headers: options.headers ?? {} });
    request.on('response', (response) => {
      let buffered = '';
      response.on('data', (chunk: Buffer) => {
        const arrived = process.hrtime.bigint();
        buffered += chunk.toString();
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          onLine(arrived, buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
        }
      });
      resolve(() => request.destroy());
    });
    request.on('error', reject);
    request.end();
  });
}

/**
 * The aggregator proxy: GET of one 2 KB object through kube-apiserver-lite's proxy vs directly on a bare
 * HTTPS backend (same bytes, same run; the backend's TLS handshakes per proxied request in the notes), the
 * latency a watch event gains through the proxy (events written by the backend, received by a proxied and
 * a direct watch at once), and the issue's comparison with the sample wardle server (see throughWardle).
 * With `KAPI_BENCH_PROFILE=<dir>`, the proxied phases are CPU-profiled (main server), and the wardle server too.
 */
export async function aggregatorBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const duration = options.quick ? 5 : 10;
  const directory = mkdtempSync(join(tmpdir(), 'kapi-aggregator-bench-'));
  const tokens = join(directory, 'tokens.csv');
  writeFileSync(tokens, 'bench-token,bench,1,"system:masters"\n');
  // The default 30 s availability re-check (an APIService is checked at once when created): on a loaded
  // machine a re-check timing out mid-run would turn the proxied GETs into 503s.
  const running = await startControlPlane(
    parseOptions([`--data-dir=${directory}`, '--secure-port=0', `--token-auth-file=${tokens}`, '--max-requests-inflight=0']),
  );
  const ca = readFileSync(join(directory, 'ca.crt'), 'utf8');
  const client = new RestClient({ server: running.url, token: 'bench-token', ca });
  const backendCA = generateCertificateAuthority({ commonName: 'wardle-ca' });
  const serving = issueServingCertificate(backendCA, { hosts: ['api.wardle.svc', '127.0.0.1'] });
  const body = Buffer.from(JSON.stringify({ ...sampleObject('two-kb'), apiVersion: `${group}/v1alpha1`, kind: 'Flunder' }));
  const requestHeaderCA = readFileSync(join(directory, 'front-proxy-ca.crt'), 'utf8');
  const backend = await startBackend({ key: serving.privateKeyPem, cert: serving.certificatePem, requestHeaderCA, body, group, watchPath });
  const backendURL = `https://127.0.0.1:${backend.port}`;
  try {
    for (;;) {
      const ready = await client.raw({ method: 'GET', path: '/readyz' }).catch(() => undefined);
      if (ready?.statusCode === 200) break;
      await sleep(100);
    }
    const post = (path: string, object: unknown) => client.request({ method: 'POST', path, body: object });
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } });
    await post('/api/v1/namespaces/wardle/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443 }] } });
    await post('/apis/discovery.k8s.io/v1/namespaces/wardle/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'api-1', labels: { 'kubernetes.io/service-name': 'api' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'] }],
      ports: [{ name: 'https', port: backend.port }],
    });
    await post('/apis/apiregistration.k8s.io/v1/apiservices', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `v1alpha1.${group}` },
      spec: { group, version: 'v1alpha1', service: { namespace: 'wardle', name: 'api' }, caBundle: Buffer.from(backendCA.certificatePem).toString('base64'), groupPriorityMinimum: 1000, versionPriority: 15 },
    });
    while ((await client.raw({ method: 'GET', path: itemPath })).statusCode !== 200) await sleep(100);

    const headers = { authorization: 'Bearer bench-token' };
    const spec = { connections: 100, durationSeconds: duration };
    // What the backend serves during the proxied runs: how many TLS handshakes per proxied request.
    const proxiedCounts = { handshakes: 0, requests: 0 };
    const { control: direct, subject: proxied } = await alternately(
      () => warmedLoad({ ...spec, ca: backendCA.certificatePem, url: `${backendURL}${itemPath}` }),
      async () => {
        const before = await backend.counts();
        const result = await profiled('proxied', () => warmedLoad({ ...spec, ca, url: `${running.url}${itemPath}`, headers }));
        const after = await backend.counts();
        proxiedCounts.handshakes += after.handshakes - before.handshakes;
        proxiedCounts.requests += after.requests - before.requests;
        return result;
      },
    );
    // The server's own GET of a local 2 KB object: what the proxy costs on top of the handler chain.
    await client.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: { ...sampleObject('two-kb'), metadata: { name: 'two-kb' } } });
    const local = await warmedLoad({ ...spec, ca, url: `${running.url}/api/v1/namespaces/default/configmaps/two-kb`, headers });
    const rows: BenchRow[] = [
      {
        // No target: the issue's (>= 50%) compares with a real aggregated server (the wardle rows below);
        // this backend answers without a handler chain, so the proxy's whole cost shows here.
        ...row('GET one 2 KB object, 100 connections', 'through the aggregator proxy', proxied.requestsPerSecond, 'a bare https backend (no handler chain), same bytes', direct.requestsPerSecond, 'req/s'),
        notes: `backend TLS handshakes: ${proxiedCounts.handshakes} for ${proxiedCounts.requests} proxied requests`,
      },
      row('GET one 2 KB object, 100 connections', 'through the aggregator proxy', proxied.requestsPerSecond, 'a local ConfigMap on the same server', local.requestsPerSecond, 'req/s'),
      { ...row('GET p99 latency, 100 connections', 'through the aggregator proxy', proxied.latencyP99, 'directly on the backend', direct.latencyP99, 'ms (lower is better)'), ratio: proxied.latencyP99 / direct.latencyP99 },
    ];

    // Watch: every event goes to a proxied and a direct watch at once; each side's delay from the write.
    // Arrivals are matched with the backend's write times at the end (those come back from its worker).
    const arrivals = { proxied: [] as Array<[string, bigint]>, direct: [] as Array<[string, bigint]> };
    const record = (side: 'proxied' | 'direct') => (arrived: bigint, line: string) => {
      arrivals[side].push([(JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name, arrived]);
    };
    const closeProxied = await openWatch(`${running.url}${watchPath}`, { ca, headers }, record('proxied'));
    const closeDirect = await openWatch(`${backendURL}${watchPath}`, { ca: backendCA.certificatePem }, record('direct'));
    while (backend.watchCount() < 2) await sleep(10);
    const events = options.quick ? 500 : 2000;
    for (let i = 0; i < events; i++) {
      const name = `e${i}`;
      const line = `${JSON.stringify({ type: 'ADDED', object: { apiVersion: `${group}/v1alpha1`, kind: 'Flunder', metadata: { name } } })}\n`;
      backend.write(name, line);
      await sleep(2);
    }
    await sleep(200);
    closeProxied();
    closeDirect();
    const delaysOf = (side: 'proxied' | 'direct') =>
      arrivals[side].flatMap(([name, arrived]) => {
        const at = backend.sent.get(name);
        return at === undefined ? [] : [Number(arrived - at) / 1e6];
      });
    const delays = { proxied: delaysOf('proxied'), direct: delaysOf('direct') };
    const p99Proxied = percentile(delays.proxied, 99);
    const p99Direct = percentile(delays.direct, 99);
    rows.push({
      ...row(`watch event delay p99 (${events} events)`, 'through the aggregator proxy', p99Proxied, 'directly on the backend', p99Direct, 'ms (lower is better)', 'added <= 2 ms'),
      ratio: p99Proxied / p99Direct,
      notes: `added ${(p99Proxied - p99Direct).toFixed(2)} ms; received ${delays.proxied.length}/${delays.direct.length} of ${events}`,
    });
    rows.push(...(await throughWardle(client, running.url, ca, join(directory, 'admin.kubeconfig'), join(directory, 'wardle'), spec)));
    return rows;
  } finally {
    client.close();
    await backend.close();
    await running.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * The issue's comparison with a real aggregated server: the sample wardle server (its own process, its
 * handler chain, delegated authentication) serving one 2 KB Flunder, read through the proxy (front-proxy
 * identity headers) and directly with the same bearer token (a TokenReview on the main server, cached 10 s).
 * The bench user is in system:masters, so neither path sends a SubjectAccessReview.
 */
async function throughWardle(client: RestClient, mainURL: string, ca: string, kubeconfig: string, dataDir: string, spec: { connections: number; durationSeconds: number }): Promise<BenchRow[]> {
  const wardle = await startWardle(kubeconfig, dataDir);
  try {
    const path = `/apis/${group}/v1beta1/namespaces/default/flunders`;
    const flunder = { apiVersion: `${group}/v1beta1`, kind: 'Flunder', metadata: { name: 'two-kb', annotations: { 'bench/payload': 'x'.repeat(2048) } }, spec: {} };
    for (;;) {
      const answer = await client.raw({ method: 'POST', path, body: flunder }).catch(() => undefined);
      if (answer?.statusCode === 201 || answer?.statusCode === 409) break;
      await sleep(200);
    }
    const headers = { authorization: 'Bearer bench-token' };
    const { control: direct, subject: proxied } = await alternately(
      () => warmedLoad({ ...spec, ca: wardle.ca, url: `${wardle.url}${path}/two-kb`, headers }),
      () => profiled('wardle-proxied', () => warmedLoad({ ...spec, ca, url: `${mainURL}${path}/two-kb`, headers })),
    );
    return [
      row('GET one 2 KB Flunder of the wardle server, 100 connections', 'through the aggregator proxy', proxied.requestsPerSecond, 'directly on the wardle server, same token', direct.requestsPerSecond, 'req/s', '>= 50%'),
      { ...row('GET p99 latency, wardle server, 100 connections', 'through the aggregator proxy', proxied.latencyP99, 'directly on the wardle server', direct.latencyP99, 'ms (lower is better)'), ratio: proxied.latencyP99 / direct.latencyP99 },
    ];
  } finally {
    await wardle.stop();
  }
}
