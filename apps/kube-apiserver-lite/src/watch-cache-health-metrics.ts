import { Gauge } from 'prom-client';
import type { ServerMetrics } from '@kapi/server';
import type { Cacher } from '@kapi/watch-cache';
import { groupResourceLabel } from './storage-metrics.js';

/**
 * Publishes each watch cache's health, read at each scrape: upstream's `apiserver_watch_cache_capacity{group,resource}`
 * and, where upstream has no metric, `kapi_watch_cache_*{resource}`: the history window (oldest resumable resource
 * version, events held, age of the oldest), the open watchers, and the bookmark lag (seconds since the last bookmark
 * or progress notification sent to a watcher, and revisions by which the cache trails the storage).
 * `caches` is keyed `<group>/<resource>`; `now` is the clock the cachers use.
 */
export function observeWatchCacheHealth(metrics: ServerMetrics, caches: ReadonlyMap<string, Cacher>, now: () => number = Date.now): void {
  const registers = [metrics.registry];
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['resource'], registers });
  const capacity = new Gauge({
    name: 'apiserver_watch_cache_capacity',
    help: 'Total capacity of watch cache broken by resource type.',
    labelNames: ['group', 'resource'],
    registers,
  });
  const oldest = gauge('kapi_watch_cache_history_oldest_resource_version', 'Oldest resource version a watch can resume from in the watch cache history, by resource.');
  const events = gauge('kapi_watch_cache_history_events', 'Number of events held in the watch cache history, by resource.');
  const age = gauge('kapi_watch_cache_history_age_seconds', 'Age of the oldest event held in the watch cache history (0 when empty), by resource.');
  const watchers = gauge('kapi_watch_cache_watchers', 'Number of open watches served by the watch cache, by resource.');
  const bookmarkLag = gauge('kapi_watch_cache_bookmark_lag_seconds', 'Seconds since the watch cache last sent a bookmark or progress notification to a watcher (absent before the first), by resource.');
  const revisionLag = gauge('kapi_watch_cache_resource_version_lag', 'Resource versions by which the watch cache trails the storage current resource version, by resource.');

  metrics.onScrape(async () => {
    const first = caches.values().next().value;
    const current = first ? await first.getCurrentResourceVersion().catch(() => undefined) : undefined;
    const time = now();
    for (const [key, cacher] of caches) {
      const [group = '', resource = ''] = key.split('/');
      const labels = { resource: groupResourceLabel(group, resource) };
      const health = cacher.health;
      capacity.set({ group, resource }, health.historyCapacity);
      oldest.set(labels, health.oldestResourceVersion);
      events.set(labels, health.historyEvents);
      age.set(labels, health.oldestEventTime === undefined ? 0 : Math.max(0, time - health.oldestEventTime) / 1000);
      watchers.set(labels, health.watchers);
      if (health.lastBookmarkTime !== undefined) bookmarkLag.set(labels, Math.max(0, time - health.lastBookmarkTime) / 1000);
      if (current !== undefined && cacher.isReady) revisionLag.set(labels, Math.max(0, current - health.resourceVersion));
    }
  });
}
