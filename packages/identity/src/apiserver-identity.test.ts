import { describe, expect, it } from 'vitest';
import { apiserverIdentity, base32LowerNoPadding } from './apiserver-identity.js';
import { FakeClock } from './clock.js';
import { isLeaseExpired } from './lease-garbage-collector.js';

describe('apiserverIdentity', () => {
  it('matches the upstream test vector', () => {
    expect(apiserverIdentity('node1')).toBe('apiserver-hbz46noag6fulempxd2cbk6bvq');
  });

  it('is 26 base32 characters after the prefix and differs per host', () => {
    const id = apiserverIdentity('replica-2');
    expect(id).toMatch(/^apiserver-[a-z2-7]{26}$/);
    expect(id).not.toBe(apiserverIdentity('replica-3'));
  });

  it('encodes RFC 4648 base32 without padding', () => {
    expect(base32LowerNoPadding(Buffer.from('foobar'))).toBe('mzxw6ytboi');
    expect(base32LowerNoPadding(Buffer.from('f'))).toBe('my');
  });
});

describe('isLeaseExpired', () => {
  const clock = new FakeClock();
  const lease = (renewTime: string | undefined, duration: number | undefined) => ({
    metadata: { name: 'x' },
    spec: { ...(renewTime ? { renewTime } : {}), ...(duration !== undefined ? { leaseDurationSeconds: duration } : {}) },
  });

  it('treats missing renewTime or duration as expired', () => {
    expect(isLeaseExpired(lease(undefined, 10), clock.now())).toBe(true);
    expect(isLeaseExpired(lease(new Date(clock.now()).toISOString(), undefined), clock.now())).toBe(true);
  });

  it('expires after renewTime + duration', () => {
    const fresh = lease(new Date(clock.now()).toISOString(), 10);
    expect(isLeaseExpired(fresh, clock.now())).toBe(false);
    clock.advance(10_001);
    expect(isLeaseExpired(fresh, clock.now())).toBe(true);
  });
});
