import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RestClient } from '@kapi/client';
import { GarbageCollector } from './garbage-collector.js';

const at = { resourceKey: '/configmaps', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' };
const owned = (uid: string) => ({
  metadata: { uid, name: uid, namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'owner' }] },
});

async function graphObjects(registry: Registry): Promise<string | undefined> {
  return /^garbage_collector_graph_objects (\d+)$/m.exec(await registry.metrics())?.[1];
}

describe('GarbageCollector metrics', () => {
  it('a collector started again on the same registry (a new leader term) reuses the metrics and reports its own graph', async () => {
    const registry = new Registry();
    const options = { rest: new RestClient({ server: 'https://127.0.0.1:1' }), resources: () => [], metricsRegistry: registry };
    const first = new GarbageCollector(options);
    first.graph.upsert({ ...at, name: 'a' }, owned('a'));
    first.graph.upsert({ ...at, name: 'b' }, owned('b'));
    expect(await graphObjects(registry)).toBe('2');
    await first.stop();
    expect(await graphObjects(registry)).toBe('0');
    const second = new GarbageCollector(options);
    second.graph.upsert({ ...at, name: 'c' }, owned('c'));
    expect(await graphObjects(registry)).toBe('1');
    await second.stop();
  });
});
