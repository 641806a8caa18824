import { describe, expect, it } from 'vitest';
import { firstServiceIP, formatIPv4, parseIPv4, parseServiceIPRange, usableIn } from './service-ip-range.js';

describe('service IP range', () => {
  it('parses an IPv4 CIDR, normalised to its network address', () => {
    const range = parseServiceIPRange('10.96.3.7/16');
    expect(range).toEqual({ cidr: '10.96.0.0/16', base: parseIPv4('10.96.0.0'), size: 65536 });
    expect(firstServiceIP(range)).toBe('10.96.0.1');
    expect(firstServiceIP(parseServiceIPRange('10.0.0.0/24'))).toBe('10.0.0.1');
  });

  it('never hands out the network or broadcast address', () => {
    const range = parseServiceIPRange('192.168.1.0/29');
    const usable = Array.from({ length: 10 }, (_, i) => range.base - 1 + i)
      .filter((ip) => usableIn(range, ip))
      .map(formatIPv4);
    expect(usable).toEqual([
      '192.168.1.1',
      '192.168.1.2',
      '192.168.1.3',
      '192.168.1.4',
      '192.168.1.5',
      '192.168.1.6',
    ]);
  });

  it('refuses what is not an IPv4 CIDR, a range without addresses, or one larger than /12', () => {
    for (const bad of [
      '10.0.0.0',
      '10.0.0/24',
      '10.0.0.256/24',
      'fd00::/108',
      '10.0.0.0/33',
      '010.0.0.0/24',
      '10.0.0.0/24/1',
    ])
      expect(() => parseServiceIPRange(bad), bad).toThrow(/is not an IPv4 CIDR/);
    expect(() => parseServiceIPRange('10.0.0.0/31')).toThrow(/no usable addresses/);
    expect(() => parseServiceIPRange('10.0.0.0/8')).toThrow(/too large/);
  });

  it('round-trips addresses', () => {
    expect(parseIPv4('255.255.255.255')).toBe(2 ** 32 - 1);
    expect(formatIPv4(parseIPv4('172.16.254.3') as number)).toBe('172.16.254.3');
    expect(parseIPv4('1.2.3')).toBeUndefined();
  });
});
