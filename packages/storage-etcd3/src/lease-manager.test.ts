import { describe, expect, it } from 'vitest';
import { LeaseManager } from './lease-manager.js';

function setup(options: { maxAttachedObjects?: number } = {}) {
  let now = 1_000_000;
  const grants: number[] = [];
  const manager = new LeaseManager({
    grant: async (ttl) => {
      grants.push(ttl);
      return String(grants.length);
    },
    now: () => now,
    ...options,
  });
  return { manager, grants, advance: (ms: number) => (now += ms) };
}

describe('LeaseManager', () => {
  it('shares one lease between writes with the same TTL within the reuse window', async () => {
    const { manager, grants, advance } = setup();
    const first = await manager.leaseFor(100);
    advance(4000); // reuse window for 100 s is 5 s
    expect(await manager.leaseFor(100)).toBe(first);
    advance(2000);
    expect(await manager.leaseFor(100)).not.toBe(first);
    expect(grants).toEqual([105, 105]);
  });

  it('grants separate leases per TTL and extends short TTLs by at least one second', async () => {
    const { manager, grants } = setup();
    const short = await manager.leaseFor(2);
    const long = await manager.leaseFor(30);
    expect(short).not.toBe(long);
    expect(await manager.leaseFor(2)).toBe(short);
    expect(grants).toEqual([3, 31]);
  });

  it('shares a grant still in flight and caps the objects per lease', async () => {
    const { manager, grants } = setup({ maxAttachedObjects: 2 });
    const ids = await Promise.all([manager.leaseFor(10), manager.leaseFor(10), manager.leaseFor(10)]);
    expect(ids).toEqual(['1', '1', '2']);
    expect(grants).toEqual([11, 11]);
  });

  it('forgets a failed grant', async () => {
    let fail = true;
    const manager = new LeaseManager({
      grant: async () => {
        if (fail) throw new Error('down');
        return '7';
      },
    });
    await expect(manager.leaseFor(10)).rejects.toThrow('down');
    fail = false;
    expect(await manager.leaseFor(10)).toBe('7');
  });
});

describe('LeaseManager.reportedTtl', () => {
  it('does not report the extra lifetime of a shared lease', async () => {
    const manager = new LeaseManager({ grant: async () => '9' });
    const id = await manager.leaseFor(300); // granted 315 s
    await Promise.resolve();
    expect(manager.reportedTtl(id, 315)).toBe(300);
    expect(manager.reportedTtl(id, 10)).toBe(1);
    expect(manager.reportedTtl('unknown', 42)).toBe(42);
  });
});
