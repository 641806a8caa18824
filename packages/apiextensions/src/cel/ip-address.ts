import { isIPv4, isIPv6 } from 'node:net';

/** An IP address as Go's netip.Addr: its family and its bits. */
export interface IPAddress {
  family: 4 | 6;
  bits: bigint;
}

/** Bit width of a family. */
export const widthOf = (family: 4 | 6): number => (family === 4 ? 32 : 128);

function parseIPv4Bits(text: string): bigint {
  return text.split('.').reduce((bits, part) => (bits << 8n) | BigInt(Number(part)), 0n);
}

function parseIPv6Bits(text: string): bigint {
  let source = text;
  const lastColon = source.lastIndexOf(':');
  if (source.slice(lastColon + 1).includes('.')) {
    // An embedded dotted quad is two groups.
    const v4 = parseIPv4Bits(source.slice(lastColon + 1));
    source = `${source.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head = '', rest] = source.split('::');
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(group), 0n);
}

/** Parses an address as upstream's CEL `ip()`: no zones, no IPv4-mapped IPv6; an error text otherwise. */
export function parseIP(text: string): IPAddress | string {
  if (text.includes('%')) return `IP address ${JSON.stringify(text)} with zone value is not allowed`;
  if (isIPv4(text)) return { family: 4, bits: parseIPv4Bits(text) };
  if (isIPv6(text)) {
    const bits = parseIPv6Bits(text);
    if (bits >> 32n === 0xffffn) return `IPv4-mapped IPv6 address ${JSON.stringify(text)} is not allowed`;
    return { family: 6, bits };
  }
  return `IP Address ${JSON.stringify(text)} parse error during conversion from string: ParseAddr(${JSON.stringify(text)}): unable to parse IP`;
}

/** The canonical text (dotted quad; RFC 5952 for IPv6, as Go's netip). */
export function formatIP(address: IPAddress): string {
  if (address.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((address.bits >> shift) & 0xffn)).join('.');
  }
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((address.bits >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** The address with only its first `prefix` bits kept. */
export function maskIP(address: IPAddress, prefix: number): IPAddress {
  const width = BigInt(widthOf(address.family));
  const keep = ((1n << BigInt(prefix)) - 1n) << (width - BigInt(prefix));
  return { family: address.family, bits: address.bits & keep };
}

/** Whether `address` lies in `prefix`-bit network `network`. */
export function inNetwork(network: IPAddress, prefix: number, address: IPAddress): boolean {
  return network.family === address.family && maskIP(network, prefix).bits === maskIP(address, prefix).bits;
}
