import type { Interface } from '@kapi/storage';
import type { ServerMetrics } from '../metrics/index.js';

/**
 * Runs `run`, recording its duration once it settles. Not an async function: a storage call costs one
 * promise reaction here rather than an async frame and its awaits (every GET passes here).
 */
function timed<T>(metrics: ServerMetrics, operation: string, resource: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const observe = (): void => metrics.observeStorage(operation, resource, (performance.now() - started) / 1000);
  let work: Promise<T>;
  try {
    work = run();
  } catch (error) {
    observe();
    return Promise.reject(error);
  }
  return work.then(
    (value) => {
      observe();
      return value;
    },
    (error: unknown) => {
      observe();
      throw error;
    },
  );
}

/**
 * Wraps a storage Interface so each call is recorded in `etcd_request_duration_seconds` and
 * `etcd_requests_total` under `resource` (e.g. `widgets.example.com`).
 */
export function instrumentStorage(storage: Interface, metrics: ServerMetrics, resource: string): Interface {
  return {
    create: (key, object, options) =>
      timed(metrics, 'create', resource, () => storage.create(key, object, options)),
    get: (key, options) => timed(metrics, 'get', resource, () => storage.get(key, options)),
    getList: (key, options) => timed(metrics, 'list', resource, () => storage.getList(key, options)),
    watch: (key, options) => timed(metrics, 'watch', resource, () => storage.watch(key, options)),
    guaranteedUpdate: (key, options) =>
      timed(metrics, 'update', resource, () => storage.guaranteedUpdate(key, options)),
    delete: (key, options) => timed(metrics, 'delete', resource, () => storage.delete(key, options)),
    count: (key) => timed(metrics, 'count', resource, () => storage.count(key)),
  };
}
