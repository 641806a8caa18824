import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { celCompilationCount } from '@kapi/apiextensions';
import { parse } from 'yaml';
import { measureRate, row, type BenchRow } from './harness.js';
import { profiled } from './cpu-profile.js';
import { alternately, load, startServer, warmedLoad, type WarmedResult } from './http-bench.js';

const fixtures = fileURLToPath(new URL('../../tests/fixtures/crds/gateway-api/', import.meta.url));

/** An HTTPRoute exercising the schema and its CEL rules (matches, filters, backendRefs). */
function httpRoute(name: string | undefined): Record<string, unknown> {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: name ? { name } : { generateName: 'bench-' },
    spec: {
      parentRefs: [{ name: 'gateway' }],
      hostnames: ['bench.example.com'],
      rules: Array.from({ length: 4 }, (_, i) => ({
        matches: [{ path: { type: 'PathPrefix', value: `/service-${i}` }, headers: [{ name: 'x-version', value: `v${i}` }] }],
        filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { add: [{ name: 'x-route', value: `r${i}` }] } }],
        backendRefs: [{ name: `service-${i}`, port: 8080, weight: 1 }],
      })),
    },
  };
}

/** A ConfigMap whose JSON is as long as `like`'s. */
function configMapLike(like: Record<string, unknown>, name: string | undefined): Record<string, unknown> {
  const empty = { apiVersion: 'v1', kind: 'ConfigMap', metadata: name ? { name } : { generateName: 'bench-' }, data: { payload: '' } };
  const padding = Math.max(0, JSON.stringify(like).length - JSON.stringify(empty).length);
  return { ...empty, data: { payload: 'x'.repeat(padding) } };
}

/** `run`, then a line on stderr with its label: the two runs of each kind can differ, and this says how. */
async function logged(label: string, run: () => Promise<WarmedResult>): Promise<WarmedResult> {
  const result = await run();
  console.error(`[crd] ${label}: ${result.requestsPerSecond.toFixed(0)}/s, ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU per create (main thread ${result.mainThreadMicrosPerRequest.toFixed(0)}, GC pauses ${result.gcPauseMicrosPerRequest.toFixed(0)})`);
  return result;
}

/**
 * Custom resources beside built-ins on the same server: create over HTTPS of a Gateway API HTTPRoute
 * (structural schema + CEL) against a ConfigMap create of the same size, LIST of 10k of each from the
 * watch cache, and the number of CEL compilations across all the creates.
 */
export async function crdBench(options: { quick: boolean }): Promise<BenchRow[]> {
  const duration = options.quick ? 5 : 10;
  const directory = mkdtempSync(join(tmpdir(), 'kapi-crd-bench-'));
  const rows: BenchRow[] = [];
  try {
    const server = await startServer(directory, ['--storage=sqlite']);
    const crd = parse(readFileSync(join(fixtures, 'gateway.networking.k8s.io_httproutes.yaml'), 'utf8')) as Record<string, unknown>;
    await server.client.request({ method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body: crd });
    const routes = '/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes';
    for (let attempt = 0; ; attempt++) {
      const answer = await server.client.raw({ method: 'POST', path: routes, body: httpRoute('first') });
      if (answer.statusCode === 201) break;
      if (attempt > 300) throw new Error(`HTTPRoutes are not served: ${answer.statusCode} ${answer.body.toString()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const compiledBefore = celCompilationCount();
    const spec = { connections: 64, durationSeconds: duration, ca: server.ca, method: 'POST', headers: server.headers };
    const configMaps = '/api/v1/namespaces/default/configmaps';
    const route = JSON.stringify(httpRoute(undefined));
    const configMap = JSON.stringify(configMapLike(httpRoute(undefined), undefined));
    // Alternately, twice each (KAPI_BENCH_PROFILE: a CPU profile of each measured run, crd-create-*.cpuprofile): the first load on a fresh server pays for JIT warm-up, which would favour the second kind.
    const { control, subject } = await alternately(
      () => logged('ConfigMap', () => warmedLoad({ ...spec, url: `${server.running.url}${configMaps}`, body: configMap }, (run) => profiled('crd-create-configmap', run))),
      () => logged('HTTPRoute', () => warmedLoad({ ...spec, url: `${server.running.url}${routes}`, body: route }, (run) => profiled('crd-create-httproute', run))),
    );
    rows.push(row(`create over HTTPS, 64 connections (${route.length} B)`, 'HTTPRoute (schema + CEL)', subject.requestsPerSecond, 'ConfigMap, same size', control.requestsPerSecond, 'writes/s', '>= 50%'));
    // CPU the server process spent per create: much less sensitive to the machine's load than the rates.
    rows.push({
      ...row('server CPU per create (same runs)', 'HTTPRoute (schema + CEL)', subject.cpuMicrosPerRequest, 'ConfigMap, same size', control.cpuMicrosPerRequest, 'µs/request (lower is better)', '>= 50%'),
      ratio: control.cpuMicrosPerRequest / subject.cpuMicrosPerRequest,
    });
    const created = Math.round(subject.requestsPerSecond * (duration + 2) * 2);
    rows.push({ ...row(`CEL compilations during ~${created} HTTPRoute creates`, 'compilations', celCompilationCount() - compiledBefore, 'compilations at CRD install', compiledBefore, 'expressions'), notes: 'compiled once per rule text, not per request' });

    // LIST of 10k of each, same size, from the watch cache.
    for (const name of ['crd-list', 'cm-list']) {
      await server.client.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
    }
    const routeList = '/apis/gateway.networking.k8s.io/v1/namespaces/crd-list/httproutes';
    const configMapList = '/api/v1/namespaces/cm-list/configmaps';
    const total = options.quick ? 2000 : 10_000;
    await measureRate(total, 64, (i) => server.client.request({ method: 'POST', path: routeList, body: httpRoute(`r${i}`) }));
    // "Of the same size" as served: the HTTPRoutes gained schema defaults, both kinds gained metadata.
    const served = await server.client.request<Record<string, unknown>>({ method: 'GET', path: `${routeList}/r0` });
    const probe = await server.client.request<Record<string, unknown>>({ method: 'POST', path: configMaps, body: configMapLike({}, 'r0') });
    const padding = JSON.stringify(served).length - JSON.stringify(probe).length;
    const sized = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: 'x'.repeat(padding) } });
    await measureRate(total, 64, (i) => server.client.request({ method: 'POST', path: configMapList, body: sized(`r${i}`) }));
    const listSpec = { connections: 4, durationSeconds: duration, ca: server.ca, headers: server.headers };
    const configMapRate = await load({ ...listSpec, url: `${server.running.url}${configMapList}?resourceVersion=0` });
    const routeRate = await load({ ...listSpec, url: `${server.running.url}${routeList}?resourceVersion=0` });
    rows.push(row(`LIST ${total / 1000}k (RV=0, watch cache), 4 connections`, 'HTTPRoutes', routeRate.requestsPerSecond, 'ConfigMaps, same size', configMapRate.requestsPerSecond, 'lists/s', '>= 67% (within 1.5x)'));
    server.client.close();
    await server.running.stop();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return rows;
}
