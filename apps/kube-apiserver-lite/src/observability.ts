import { Counter, Gauge } from 'prom-client';
import { HealthRegistry, ServerMetrics } from '@kapi/server';
import type { SqliteBackendStats } from '@kapi/storage-sqlite';
import type { StorageVersionManager } from '@kapi/storageversion';

/** The server's metrics and health registries, wired so every health-check result is a gauge. */
export interface Observability {
  metrics: ServerMetrics;
  health: HealthRegistry;
  /** Counts StorageVersion updates by resource and outcome (success, conflict, error). */
  storageVersionUpdate(groupResource: { group: string; resource: string }, outcome: string): void;
  /** Exports the embedded SQLite store's write counters (read at each scrape). */
  watchSqlite(stats: () => SqliteBackendStats): void;
  /** Re-runs the health checks periodically so the gauges stay current without /readyz traffic. */
  start(manager?: StorageVersionManager): void;
  stop(): void;
}

/** Builds the metrics/health pair kube-apiserver-lite hands to its generic apiserver. */
export function createObservability(): Observability {
  const metrics = new ServerMetrics();
  const health = new HealthRegistry({ onResult: (name, endpoint, healthy) => metrics.observeHealthCheck(name, endpoint, healthy) });
  const updates = new Counter({
    name: 'apiserver_storage_version_updates_total',
    help: 'StorageVersion updates of this apiserver by resource and outcome (success, conflict, error).',
    labelNames: ['resource', 'outcome'],
    registers: [metrics.registry],
  });
  const complete = new Gauge({
    name: 'apiserver_storage_version_registration_complete',
    help: '1 once this apiserver published the storage versions of all its resources (the write barrier is open).',
    registers: [metrics.registry],
  });
  let timer: NodeJS.Timeout | undefined;
  return {
    metrics,
    health,
    watchSqlite(stats) {
      const counter = (name: string, help: string, value: (current: SqliteBackendStats) => number) =>
        new Counter({
          name,
          help,
          registers: [metrics.registry],
          collect() {
            this.reset();
            this.inc(value(stats()));
          },
        });
      counter('kapi_sqlite_writes_total', 'Writes committed to the embedded SQLite store (one revision each).', (s) => s.writes);
      counter(
        'kapi_sqlite_write_transactions_total',
        'Write transactions of the embedded SQLite store (one fsync each); group commit makes this lower than the writes.',
        (s) => s.transactions,
      );
      counter(
        'kapi_sqlite_checkpoints_total',
        'WAL checkpoints run beside the writer thread by the embedded SQLite store (--sqlite-mode=writer-thread).',
        (s) => s.checkpoints,
      );
    },
    storageVersionUpdate(gr, outcome) {
      updates.inc({ resource: gr.group ? `${gr.resource}.${gr.group}` : gr.resource, outcome });
    },
    start(manager) {
      const refresh = () => {
        complete.set(manager?.completed() ? 1 : 0);
        for (const endpoint of ['livez', 'readyz'] as const) void health.run(endpoint).catch(() => undefined);
      };
      refresh();
      timer = setInterval(refresh, 10_000);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
