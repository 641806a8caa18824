import { Counter, Gauge, type Registry } from 'prom-client';
import type { ServerMetrics } from '@kapi/server';
import type { Interface } from '@kapi/storage';
import type { CacherMetrics } from '@kapi/watch-cache';

/** `<resource>.<group>` (`configmaps` for the core group), upstream's group-resource label value. */
export const groupResourceLabel = (group: string, resource: string) => (group ? `${resource}.${group}` : resource);

/**
 * The watch caches' metrics, named as upstream names them: `apiserver_watch_cache_events_received_total`,
 * `apiserver_watch_cache_initializations_total`, `apiserver_watch_cache_resource_version` and
 * `etcd_bookmark_counts` (progress notifications received from the storage), each by `resource`.
 */
export function createWatchCacheMetrics(registry: Registry): (group: string, resource: string) => CacherMetrics {
  const registers = [registry];
  const received = new Counter({
    name: 'apiserver_watch_cache_events_received_total',
    help: 'Counter of events received in watch cache broken by resource type.',
    labelNames: ['resource'],
    registers,
  });
  const initializations = new Counter({
    name: 'apiserver_watch_cache_initializations_total',
    help: 'Counter of watch cache initializations broken by resource type.',
    labelNames: ['resource'],
    registers,
  });
  const resourceVersion = new Gauge({
    name: 'apiserver_watch_cache_resource_version',
    help: 'Current resource version of watch cache broken by resource type.',
    labelNames: ['resource'],
    registers,
  });
  const bookmarks = new Gauge({
    name: 'etcd_bookmark_counts',
    help: 'Number of etcd bookmarks (progress notify events) split by kind.',
    labelNames: ['resource'],
    registers,
  });
  return (group, resource) => {
    const labels = { resource: groupResourceLabel(group, resource) };
    const events = received.labels(labels);
    const version = resourceVersion.labels(labels);
    const progress = bookmarks.labels(labels);
    return {
      eventReceived(revision) {
        events.inc();
        version.set(revision);
      },
      progressReceived(revision) {
        progress.inc();
        version.set(revision);
      },
      initialized: () => initializations.inc(labels),
    };
  };
}

/** Keeps `apiserver_storage_objects{resource}` current: each scrape counts every resource's objects. */
export function observeStorageObjects(
  metrics: ServerMetrics,
  storages: ReadonlyMap<string, { storage: Interface; prefix: string }>,
): void {
  metrics.onScrape(async () => {
    await Promise.all(
      [...storages].map(async ([key, { storage, prefix }]) => {
        const [group = '', resource = ''] = key.split('/');
        const count = await storage.count(prefix).catch(() => undefined);
        if (count !== undefined) metrics.setStorageObjects(groupResourceLabel(group, resource), count);
      }),
    );
  });
}
