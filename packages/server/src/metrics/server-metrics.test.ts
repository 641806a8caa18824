import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register as globalRegistry } from 'prom-client';
import { HealthRegistry } from '../health/health-registry.js';
import { startTestServer, type TestServer } from '../discovery/test-server.js';
import { ServerMetrics, canonicalVerb } from './server-metrics.js';

describe('ServerMetrics', () => {
  let server: TestServer;
  const metrics = new ServerMetrics();
  beforeAll(async () => {
    server = await startTestServer(metrics.handler());
  });
  afterAll(() => server.close());

  it('exposes request, in-flight, watcher, storage and health metrics on /metrics', async () => {
    metrics.observeRequest({ verb: 'list', group: 'apps', version: 'v1', resource: 'deployments', scope: 'namespace', code: 200, durationSeconds: 0.03 });
    metrics.observeRequest({ verb: 'create', group: '', version: 'v1', resource: 'configmaps', scope: 'namespace', code: 201, durationSeconds: 0.001 });
    metrics.observeRequest({ verb: 'create', group: '', version: 'v1', resource: 'configmaps', scope: 'namespace', code: 201, durationSeconds: 0.002 });
    metrics.observeRequest({ verb: 'create', group: '', version: 'v1', resource: 'configmaps', scope: 'namespace', dryRun: 'All', code: 201, durationSeconds: 0.002 });
    metrics.trackInFlight('mutating', 1);
    metrics.trackInFlight('mutating', 1);
    metrics.trackInFlight('mutating', -1);
    metrics.trackLongRunning({ verb: 'watch', group: '', version: 'v1', resource: 'pods', scope: 'cluster' }, 1);
    metrics.trackWatchers({ group: 'apps', version: 'v1', kind: 'Deployment' }, 2);
    metrics.observeStorage('get', 'configmaps', 0.004);
    metrics.setStorageObjects('configmaps', 7);
    const health = new HealthRegistry({ onResult: (name, endpoint, healthy) => metrics.observeHealthCheck(name, endpoint, healthy) });
    health.addCheck('etcd', () => {
      throw new Error('down');
    });
    await health.run('readyz');

    const result = await server.get('/metrics');
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = result.text;
    expect(text).toContain(
      'apiserver_request_total{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",dry_run="",code="201"} 2',
    );
    expect(text).toContain(
      'apiserver_request_total{verb="POST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",dry_run="All",code="201"} 1',
    );
    expect(text).toContain(
      'apiserver_request_duration_seconds_bucket{le="0.05",verb="LIST",group="apps",version="v1",resource="deployments",subresource="",scope="namespace",component="apiserver",dry_run=""} 1',
    );
    expect(text).toContain(
      'apiserver_request_duration_seconds_bucket{le="0.025",verb="LIST",group="apps",version="v1",resource="deployments",subresource="",scope="namespace",component="apiserver",dry_run=""} 0',
    );
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 1');
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 0');
    expect(text).toContain('apiserver_longrunning_requests{verb="WATCH",group="",version="v1",resource="pods",subresource="",scope="cluster",component="apiserver"} 1');
    expect(text).toContain('apiserver_registered_watchers{group="apps",version="v1",kind="Deployment"} 2');
    expect(text).toContain('etcd_request_duration_seconds_count{operation="get",type="configmaps"} 1');
    expect(text).toContain('etcd_requests_total{operation="get",type="configmaps"} 1');
    expect(text).toContain('apiserver_storage_objects{resource="configmaps"} 7');
    expect(text).toContain('kapi_health_check{name="etcd",type="readyz"} 0');
    expect(text).toContain('kapi_health_check{name="ping",type="readyz"} 1');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_heap_size_total_bytes');
  });

  it('keeps servers apart and off the global registry', async () => {
    const other = new ServerMetrics({ defaultMetrics: false });
    other.observeRequest({ verb: 'get', code: 200, durationSeconds: 0.1 });
    const text = await other.text();
    expect(text).toContain('apiserver_request_total{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",dry_run="",code="200"} 1');
    expect(text).not.toContain('process_cpu');
    expect(await globalRegistry.getSingleMetric('apiserver_request_total')).toBeUndefined();
    expect(await metrics.text()).not.toContain('verb="GET"');
  });

  it('maps RequestInfo verbs to upstream metric verbs', () => {
    expect(['get', 'list', 'watch', 'create', 'update', 'patch', 'apply', 'delete', 'deletecollection', 'GET', 'proxy'].map(canonicalVerb)).toEqual([
      'GET', 'LIST', 'WATCH', 'POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'DELETE', 'GET', 'PROXY',
    ]);
  });
});
