import { Counter, Gauge, type Registry } from 'prom-client';
import type { ServerMetrics } from '@kapi/server';
import type { Interface } from '@kapi/storage';
import type { CacherMetrics } from '@kapi/watch-cache';

/** `<resource>.<group>` (`configmaps` for the core group), upstream's group-resource label value. */
export const groupResourceLabel = (group: string, resource: string) => (group ? `${resource}.${group}` : resource);

/** What one resource's watch cache has counted since the server started (published at each scrape). */
interface WatchCacheCounts {
  events: number;
  revision: number;
  bookmarks: number;
}

/**
 * The watch caches' metrics, named as upstream names them: `apiserver_watch_cache_events_received_total`,
 * `apiserver_watch_cache_initializations_total`, `apiserver_watch_cache_resource_version`,
 * `etcd_bookmark_counts` (progress notifications received from the storage), each by `resource`, and
 * `apiserver_watch_cache_consistent_read_total{resource,success,fallback}` (consistent LISTs the cache
 * answered, or left to the storage when it did not catch up in time).
 *
 * Events and progress notifications are counted in plain numbers and copied into the metrics when they
 * are scraped: events and progress notifications come with every write, and prom-client's labelled
 * `set`/`inc` hashes the labels and allocates on each call.
 */
export function createWatchCacheMetrics(registry: Registry): (group: string, resource: string) => CacherMetrics {
  const registers = [registry];
  const counts = new Map<string, WatchCacheCounts>();
  /** Publishes one number of every resource's counts into `metric` (only those that have counted any). */
  const publish = (metric: Counter | Gauge, pick: (state: WatchCacheCounts) => number) => {
    metric.reset();
    for (const [resource, state] of counts) {
      const value = pick(state);
      if (value > 0) metric.inc({ resource }, value);
    }
  };
  new Counter({
    name: 'apiserver_watch_cache_events_received_total',
    help: 'Counter of events received in watch cache broken by resource type.',
    labelNames: ['resource'],
    registers,
    collect() {
      publish(this, (state) => state.events);
    },
  });
  const initializations = new Counter({
    name: 'apiserver_watch_cache_initializations_total',
    help: 'Counter of watch cache initializations broken by resource type.',
    labelNames: ['resource'],
    registers,
  });
  new Gauge({
    name: 'apiserver_watch_cache_resource_version',
    help: 'Current resource version of watch cache broken by resource type.',
    labelNames: ['resource'],
    registers,
    collect() {
      publish(this, (state) => state.revision);
    },
  });
  new Gauge({
    name: 'etcd_bookmark_counts',
    help: 'Number of etcd bookmarks (progress notify events) split by kind.',
    labelNames: ['resource'],
    registers,
    collect() {
      publish(this, (state) => state.bookmarks);
    },
  });
  const consistentReads = new Counter({
    name: 'apiserver_watch_cache_consistent_read_total',
    help: 'Counter for consistent reads from cache.',
    labelNames: ['resource', 'success', 'fallback'],
    registers,
  });
  return (group, resource) => {
    const label = groupResourceLabel(group, resource);
    const state = counts.get(label) ?? { events: 0, revision: 0, bookmarks: 0 };
    counts.set(label, state);
    return {
      eventReceived(revision) {
        state.events++;
        state.revision = revision;
      },
      progressReceived(revision) {
        state.bookmarks++;
        state.revision = revision;
      },
      initialized: () => initializations.inc({ resource: label }),
      consistentRead: (success, fallback) => consistentReads.inc({ resource: label, success: String(success), fallback: String(fallback) }),
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
