import type { IncomingMessage, ServerResponse } from 'node:http';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { LabeledCounter, LabeledHistogram, MetricsRegistry } from './labeled-metrics.js';
import { rejectNonGet, requestPath, sendBody, type PathHandler } from '../discovery/http-response.js';

/** Request latency buckets of k8s.io/apiserver (`apiserver_request_duration_seconds`). */
export const requestDurationBuckets = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/** Storage latency buckets of k8s.io/apiserver (`etcd_request_duration_seconds`). */
export const storageDurationBuckets = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/** The labels of one served request. Missing strings are reported as `''`. */
export interface RequestMetricLabels {
  /** The RequestInfo verb (`get`, `list`, `watch`, `create`, `apply`...) or an already canonical upper-case one. */
  verb: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  /** `resource` (one named object), `namespace`, `cluster`, or `''` for non-resource requests. */
  scope?: string;
  /** Default `apiserver`. */
  component?: string;
}

/** One finished request. */
export interface ObservedRequest extends RequestMetricLabels {
  /** The `dry_run` label: the request's `dryRun` values, sorted and comma-joined (`All`); '' when none. */
  dryRun?: string;
  /** HTTP status code. */
  code: number;
  durationSeconds: number;
}

/** The two request kinds of `apiserver_current_inflight_requests`. */
export type InFlightKind = 'readOnly' | 'mutating';

/** Options of {@link ServerMetrics}. */
export interface ServerMetricsOptions {
  /** Collect the default process/Node.js metrics into this registry (default true). */
  defaultMetrics?: boolean;
  /** Default `component` label (default `apiserver`). */
  component?: string;
}

const verbNames: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  apply: 'APPLY',
  delete: 'DELETE',
  deletecollection: 'DELETE',
  connect: 'CONNECT',
};

/** The upper-case verb upstream reports in request metrics (`list` -> `LIST`, `create` -> `POST`...). */
export function canonicalVerb(verb: string): string {
  return verbNames[verb] ?? verb.toUpperCase();
}

interface MetricChildren {
  total: { inc(value?: number): void };
  duration: { observe(value: number): void };
}

const requestLabelNames = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

let processRegistry: Registry | undefined;

/**
 * prom-client's default metrics (process CPU and memory, GC, event loop), collected once per process and
 * shared by every server in it: they describe the process, and prom-client never stops their collectors
 * (its GC PerformanceObserver would keep a stopped server's registry, and through it its caches, alive).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The apiserver's Prometheus metrics, in a registry of its own (never prom-client's global one, so several
 * servers can live in one process): request counts and latencies, in-flight and long-running requests,
 * registered watchers, storage latencies, health check states, and the default process metrics.
 */
export class ServerMetrics {
  /** The registry holding every metric of this server. */
  readonly registry: Registry = new MetricsRegistry();
  private readonly component: string;
  private readonly requestTotal: LabeledCounter<'code' | 'dry_run' | (typeof requestLabelNames)[number]>;
  private readonly requestDuration: LabeledHistogram<'dry_run' | (typeof requestLabelNames)[number]>;
  private readonly inFlight: Gauge<'request_kind'>;
  private readonly longRunning: Gauge<(typeof requestLabelNames)[number]>;
  private readonly watchers: Gauge<'group' | 'version' | 'kind'>;
  private readonly storageDuration: LabeledHistogram<'operation' | 'type'>;
  private readonly storageTotal: LabeledCounter<'operation' | 'type'>;
  private readonly storageObjects: Gauge<'resource'>;
  private readonly healthCheck: Gauge<'name' | 'type'>;
  private readonly kubernetesHealthCheck: Gauge<'name' | 'type'>;
  private readonly watchEvents: LabeledCounter<'group' | 'version' | 'kind'>;
  private readonly scrapeHooks: Array<() => Promise<void> | void> = [];
  /** Whether scrapes include the process metrics (CPU, memory, GC, event loop) of {@link processMetrics}. */
  private readonly defaultMetrics: boolean;
  /** Label-bound children by label values, so the hot path does no label work at all. */
  private readonly requestChildren = new Map<string, MetricChildren>();
  private readonly storageChildren = new Map<string, MetricChildren>();

  constructor(options: ServerMetricsOptions = {}) {
    this.component = options.component ?? 'apiserver';
    const registers = [this.registry];
    this.requestTotal = new LabeledCounter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, API resource, client, and HTTP response code.',
      labelNames: [...requestLabelNames, 'dry_run', 'code'],
      registers,
    });
    this.requestDuration = new LabeledHistogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.',
      labelNames: [...requestLabelNames, 'dry_run'],
      buckets: requestDurationBuckets,
      registers,
    });
    this.inFlight = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
    });
    this.inFlight.set({ request_kind: 'readOnly' }, 0);
    this.inFlight.set({ request_kind: 'mutating' }, 0);
    this.longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
      labelNames: [...requestLabelNames],
      registers,
    });
    this.watchers = new Gauge({
      name: 'apiserver_registered_watchers',
      help: 'Number of currently registered watchers for a given resources',
      labelNames: ['group', 'version', 'kind'],
      registers,
    });
    this.storageDuration = new LabeledHistogram({
      name: 'etcd_request_duration_seconds',
      help: 'Etcd request latency in seconds for each operation and object type.',
      labelNames: ['operation', 'type'],
      buckets: storageDurationBuckets,
      registers,
    });
    this.storageTotal = new LabeledCounter({
      name: 'etcd_requests_total',
      help: 'Etcd request counts for each operation and object type.',
      labelNames: ['operation', 'type'],
      registers,
    });
    this.storageObjects = new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      labelNames: ['resource'],
      registers,
    });
    this.healthCheck = new Gauge({
      name: 'kapi_health_check',
      help: 'Result of the last run of a health check: 1 healthy, 0 failing; type is healthz, livez or readyz.',
      labelNames: ['name', 'type'],
      registers,
    });
    this.kubernetesHealthCheck = new Gauge({
      name: 'kubernetes_healthcheck',
      help: 'This metric records the result of a single healthcheck.',
      labelNames: ['name', 'type'],
      registers,
    });
    this.watchEvents = new LabeledCounter({
      name: 'apiserver_watch_events_total',
      help: 'Number of events sent in watch clients',
      labelNames: ['group', 'version', 'kind'],
      registers,
    });
    this.defaultMetrics = options.defaultMetrics ?? true;
  }

  private requestLabels(labels: RequestMetricLabels): Record<(typeof requestLabelNames)[number], string> {
    return {
      verb: canonicalVerb(labels.verb),
      group: labels.group ?? '',
      version: labels.version ?? '',
      resource: labels.resource ?? '',
      subresource: labels.subresource ?? '',
      scope: labels.scope ?? '',
      component: labels.component ?? this.component,
    };
  }

  /** Records one finished request (count by code, latency). */
  observeRequest(request: ObservedRequest): void {
    const dryRun = request.dryRun ?? '';
    const key = `${request.verb}\0${request.group}\0${request.version}\0${request.resource}\0${request.subresource}\0${request.scope}\0${request.component}\0${dryRun}\0${request.code}`;
    let children = this.requestChildren.get(key);
    if (!children) {
      const labels = { ...this.requestLabels(request), dry_run: dryRun };
      children = {
        total: this.requestTotal.child({ ...labels, code: String(request.code) }),
        duration: this.requestDuration.child(labels),
      };
      this.requestChildren.set(key, children);
    }
    children.total.inc();
    children.duration.observe(request.durationSeconds);
  }

  /** Moves the in-flight gauge of a request kind by `delta` (+1 when a request starts, -1 when it ends). */
  trackInFlight(kind: InFlightKind, delta: number): void {
    this.inFlight.inc({ request_kind: kind }, delta);
  }

  /** Moves the long-running request gauge (watches, proxies) by `delta`. */
  trackLongRunning(labels: RequestMetricLabels, delta: number): void {
    this.longRunning.inc(this.requestLabels(labels), delta);
  }

  /** Moves the registered watchers gauge of a kind by `delta`. */
  trackWatchers(gvk: { group: string; version: string; kind: string }, delta: number): void {
    this.watchers.inc({ group: gvk.group, version: gvk.version, kind: gvk.kind }, delta);
  }

  /** Records one storage operation (`get`, `list`, `create`, `update`, `delete`, `watch`...) on a resource. */
  observeStorage(operation: string, resource: string, seconds: number): void {
    const key = `${operation}\0${resource}`;
    let children = this.storageChildren.get(key);
    if (!children) {
      const labels = { operation, type: resource };
      children = { total: this.storageTotal.child(labels), duration: this.storageDuration.child(labels) };
      this.storageChildren.set(key, children);
    }
    children.duration.observe(seconds);
    children.total.inc();
  }

  /** Sets the stored object count of a resource (`apiserver_storage_objects`). */
  setStorageObjects(resource: string, count: number): void {
    this.storageObjects.set({ resource }, count);
  }

  /** Records a health check result; fits `HealthRegistryOptions.onResult`. */
  observeHealthCheck(name: string, type: string, healthy: boolean): void {
    this.healthCheck.set({ name, type }, healthy ? 1 : 0);
    this.kubernetesHealthCheck.set({ name, type }, healthy ? 1 : 0);
  }

  /** The `apiserver_watch_events_total` counter of a kind, bound once per watch: `inc()` per event sent. */
  watchEventCounter(gvk: { group: string; version: string; kind: string }): { inc(value?: number): void } {
    return this.watchEvents.child({ group: gvk.group, version: gvk.version, kind: gvk.kind });
  }

  /** Runs `hook` before each scrape (for gauges read from elsewhere, such as stored object counts). */
  onScrape(hook: () => Promise<void> | void): void {
    this.scrapeHooks.push(hook);
  }

  /** The metrics in the Prometheus text exposition format. */
  async text(): Promise<string> {
    await Promise.all(this.scrapeHooks.map((hook) => hook()));
    const own = await this.registry.metrics();
    return this.defaultMetrics ? own + (await processMetrics().metrics()) : own;
  }

  /** Serves `GET /metrics` in the text format; returns false for other paths. */
  handler(): PathHandler {
    return (request: IncomingMessage, response: ServerResponse) => {
      if (requestPath(request) !== '/metrics') return false;
      if (rejectNonGet(request, response)) return true;
      this.text().then(
        (body) => sendBody(request, response, 200, body, { 'Content-Type': this.registry.contentType }),
        (error: unknown) =>
          sendBody(request, response, 500, `error gathering metrics: ${String(error)}\n`, { 'Content-Type': 'text/plain; charset=utf-8' }),
      );
      return true;
    };
  }
}
