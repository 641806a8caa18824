/**
 * An IPv4 service range (`--service-cluster-ip-range`): the network's addresses as 32-bit numbers.
 * The network and broadcast addresses are never handed out; the first usable address is the
 * `kubernetes` Service's, as upstream's.
 */
export interface ServiceIPRange {
  /** The range as given, normalised (e.g. `10.0.0.0/24`). */
  readonly cidr: string;
  /** The network address. */
  readonly base: number;
  /** How many addresses the network has (2^(32 - prefix length)). */
  readonly size: number;
}

/** Upstream's default service range when `--service-cluster-ip-range` is not given. */
export const defaultServiceClusterIPRange = '10.0.0.0/24';

/** A dotted IPv4 address as a number, or undefined when `text` is not one. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

/** `value` (a 32-bit number) as a dotted IPv4 address. */
export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/**
 * Parses `--service-cluster-ip-range`. IPv4 only (dual-stack and IPv6 service ranges are not
 * supported here); a prefix longer than /30 leaves no usable address and a network shorter than /12
 * is refused as upstream refuses ranges of more than 2^20 addresses.
 */
export function parseServiceIPRange(text: string): ServiceIPRange {
  const [address = '', prefixText, ...rest] = text.split('/');
  const ip = parseIPv4(address);
  const prefix = prefixText !== undefined && /^[0-9]{1,2}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (ip === undefined || rest.length > 0 || !(prefix >= 0 && prefix <= 32))
    throw new Error(
      `--service-cluster-ip-range: ${JSON.stringify(text)} is not an IPv4 CIDR (e.g. 10.0.0.0/24); IPv6 and dual-stack service ranges are not supported`,
    );
  if (prefix > 30)
    throw new Error(`--service-cluster-ip-range: ${text} has no usable addresses (at most /30)`);
  if (prefix < 12)
    throw new Error(`--service-cluster-ip-range: ${text} is too large (at most 2^20 addresses, /12)`);
  const size = 2 ** (32 - prefix);
  const base = ip - (ip % size);
  return { cidr: `${formatIPv4(base)}/${prefix}`, base, size };
}

/** Whether `ip` is a usable address of `range` (inside it, not its network or broadcast address). */
export function usableIn(range: ServiceIPRange, ip: number): boolean {
  return ip > range.base && ip < range.base + range.size - 1;
}

/** The first usable address of `range`: the `kubernetes` Service's cluster IP. */
export function firstServiceIP(range: ServiceIPRange): string {
  return formatIPv4(range.base + 1);
}
