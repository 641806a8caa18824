import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { Store } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceIPAllocator } from './service-ip-allocator.js';
import { parseServiceIPRange } from './service-ip-range.js';
import { NodePortAllocator, parseNodePortRange } from './node-port-allocator.js';
import { ServiceAllocationRepair } from './service-allocation-repair.js';

const backends: MemoryBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

/** Two replicas' allocators on one backend, and a services store beside them. */
function setUp(cidr = '10.0.0.0/24') {
  const backend = new MemoryBackend();
  backends.push(backend);
  const range = parseServiceIPRange(cidr);
  const replica = () => new ServiceIPAllocator(new Store({ kv: backend }), '/registry/ipaddresses', range);
  const nodePorts = new NodePortAllocator(
    new Store({ kv: backend }),
    '/registry/servicenodeports',
    parseNodePortRange('30000-30099'),
  );
  return { backend, a: replica(), b: replica(), nodePorts, services: new Store({ kv: backend }) };
}

const ref = (name: string) => ({ namespace: 'default', name });

async function failure(promise: Promise<unknown>): Promise<StatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!StatusError.isInstance(error)) throw new Error(`expected a StatusError, got ${String(error)}`);
  return error;
}

function service(name: string, clusterIP: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ports: [{ port: 80 }] },
  };
}

describe('NodePortAllocator', () => {
  it('gives each port its own node port, upper band first, with upstream errors for a taken or outside one', async () => {
    const { nodePorts } = setUp();
    // 100 ports: a lower band of 16 (30000-30015) is left to named ports while the rest is free.
    const dynamic = await Promise.all(
      Array.from({ length: 84 }, (_, i) => nodePorts.allocateNext(ref(`s${i}`))),
    );
    expect(new Set(dynamic).size).toBe(84);
    for (const port of dynamic) expect(port).toBeGreaterThanOrEqual(30016);
    expect(await nodePorts.allocateNext(ref('lower'))).toBeLessThan(30016);
    const taken = await failure(
      nodePorts.allocate(dynamic[0] as number, ref('other'), 'spec.ports[1].nodePort'),
    );
    expect(taken.message).toBe(
      `Service "other" is invalid: spec.ports[1].nodePort: Invalid value: ${dynamic[0]}: provided port is already allocated`,
    );
    const outside = await failure(nodePorts.allocate(31000, ref('other'), 'spec.ports[0].nodePort'));
    expect(outside.message).toBe(
      'Service "other" is invalid: spec.ports[0].nodePort: Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30099',
    );
    while ((await nodePorts.allocations()).length < 100) await nodePorts.allocateNext(ref('filler'));
    expect((await failure(nodePorts.allocateNext(ref('full')))).message).toBe(
      'Internal error occurred: failed to allocate a nodePort: range is full',
    );
  });

  it('parses --service-node-port-range', () => {
    expect(parseNodePortRange('30000-32767')).toEqual({ base: 30000, size: 2768 });
    expect(parseNodePortRange('8080')).toEqual({ base: 8080, size: 1 });
    for (const bad of ['0-10', '100-50', '30000-70000', 'a-b', '30000:32767'])
      expect(() => parseNodePortRange(bad), bad).toThrow(/is not a port range/);
  });
});

describe('ServiceIPAllocator', () => {
  it('gives every Service of two replicas its own address until the range is full', async () => {
    const { a, b } = setUp('10.0.0.0/28');
    // A /28 has 14 usable addresses (a lower band of 16 holds all of them).
    const allocated = await Promise.all(
      Array.from({ length: 14 }, (_, i) => (i % 2 ? a : b).allocateNext(ref(`s${i}`))),
    );
    expect(new Set(allocated).size).toBe(14);
    for (const ip of allocated) expect(ip).toMatch(/^10\.0\.0\.([1-9]|1[0-4])$/);
    const full = await failure(a.allocateNext(ref('one-too-many')));
    expect(full.code).toBe(500);
    expect(full.message).toBe('Internal error occurred: failed to allocate a serviceIP: range is full');
    expect((await a.allocations()).map((entry) => entry.id).sort()).toEqual([...allocated].sort());
  });

  it('allocates dynamically from the upper band first (the lower band is left to static addresses)', async () => {
    const { a } = setUp('10.0.0.0/24');
    for (let i = 0; i < 20; i++) {
      const ip = await a.allocateNext(ref(`s${i}`));
      expect(Number(ip.split('.')[3])).toBeGreaterThanOrEqual(16);
    }
  });

  it('allocates an address a request names when it is free and in range, with upstream 422s otherwise', async () => {
    const { a, b } = setUp();
    await a.allocate('10.0.0.10', ref('dns'));
    expect(await b.holder('10.0.0.10')).toEqual(ref('dns'));
    await b.allocate('10.0.0.10', ref('dns')); // the holder asking again keeps it
    const taken = await failure(b.allocate('10.0.0.10', ref('other')));
    expect(taken.code).toBe(422);
    expect(taken.message).toBe(
      'Service "other" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.10"]: failed to allocate IP 10.0.0.10: provided IP is already allocated',
    );
    for (const ip of ['10.0.1.5', '10.0.0.0', '10.0.0.255']) {
      const outside = await failure(a.allocate(ip, ref('x')));
      expect(outside.message).toContain(
        `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is 10.0.0.0/24`,
      );
    }
    expect(await a.holder('10.0.1.5')).toBeUndefined();
  });

  it('keeps nothing on a dry run', async () => {
    const { a } = setUp();
    const ip = await a.allocateNext(ref('dry'), true);
    await a.allocate('10.0.0.20', ref('dry'), true);
    expect(ip).toMatch(/^10\.0\.0\./);
    expect(await a.allocations()).toEqual([]);
  });

  it('releases an address only for the Service holding it', async () => {
    const { a } = setUp();
    await a.allocate('10.0.0.30', ref('held'));
    await a.release('10.0.0.30', ref('someone-else'));
    expect(await a.holder('10.0.0.30')).toEqual(ref('held'));
    await a.release('10.0.0.30', ref('held'));
    expect(await a.holder('10.0.0.30')).toBeUndefined();
    await a.release('10.0.0.30', ref('held')); // already free
  });
});

describe('ServiceAllocationRepair', () => {
  it('releases old values no Service holds and restores the ones Services hold without an allocation', async () => {
    const { a, nodePorts, services } = setUp();
    await services.create('/registry/services/specs/default/kept', service('kept', '10.0.0.40'));
    await services.create('/registry/services/specs/default/unrecorded', {
      ...service('unrecorded', '10.0.0.41'),
      spec: { type: 'NodePort', clusterIP: '10.0.0.41', ports: [{ port: 80, nodePort: 30005 }] },
    });
    await a.allocate('10.0.0.40', ref('kept'));
    await a.allocate('10.0.0.42', ref('failed-create'));
    await nodePorts.allocate(30006, ref('failed-create'), 'spec.ports[0].nodePort');
    const repair = new ServiceAllocationRepair({
      kinds: [a.repaired(), nodePorts.repaired()],
      services,
      servicesPrefix: '/registry/services/specs',
    });
    // Within the grace period a fresh allocation may belong to a create still in flight.
    expect((await repair.repair()).outcome).toEqual({
      'cluster IP': { released: [], restored: ['10.0.0.41'] },
      'node port': { released: [], restored: ['30005'] },
    });
    expect((await repair.repair(Date.now() + 61_000)).outcome).toEqual({
      'cluster IP': { released: ['10.0.0.42'], restored: [] },
      'node port': { released: ['30006'], restored: [] },
    });
    expect((await a.allocations()).map((entry) => entry.id).sort()).toEqual(['10.0.0.40', '10.0.0.41']);
    expect((await nodePorts.allocations()).map((entry) => entry.id)).toEqual(['30005']);
  });

  it('releases what a Service held as soon as it is deleted or drops it', async () => {
    const { a, services } = setUp();
    const repair = new ServiceAllocationRepair({
      kinds: [a.repaired()],
      services,
      servicesPrefix: '/registry/services/specs',
    });
    await repair.start();
    try {
      await a.allocate('10.0.0.50', ref('gone'));
      await services.create('/registry/services/specs/default/gone', service('gone', '10.0.0.50'));
      await a.allocate('10.0.0.51', ref('renamed'));
      await services.create('/registry/services/specs/default/renamed', service('renamed', '10.0.0.51'));
      await services.delete('/registry/services/specs/default/gone');
      await services.guaranteedUpdate('/registry/services/specs/default/renamed', {
        tryUpdate: (current) => ({ ...current, spec: { type: 'ExternalName', externalName: 'example.com' } }),
      });
      await expect.poll(async () => (await a.allocations()).map((entry) => entry.id)).toEqual([]);
    } finally {
      repair.stop();
    }
  });
});
