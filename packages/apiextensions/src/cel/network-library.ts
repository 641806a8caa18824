import { CelScalar, celFunc, celMethod, type CelFunc, type CelValue } from '@bufbuild/cel';
import { formatIP, inNetwork, maskIP, parseIP, widthOf, type IPAddress } from './ip-address.js';
import { opaqueText, opaqueValue, requireOpaque } from './opaque-value.js';

const { DYN, STRING, BOOL, INT } = CelScalar;

interface Network {
  address: IPAddress;
  prefix: number;
}

function ip(text: string): IPAddress {
  const parsed = parseIP(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

function parseCIDR(text: string): Network | string {
  const slash = text.lastIndexOf('/');
  const failure = (reason: string) =>
    `network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(text)}): ${reason}`;
  if (slash < 0) return failure('no \'/\'');
  const address = parseIP(text.slice(0, slash));
  if (typeof address === 'string') return failure(address);
  const bits = text.slice(slash + 1);
  const prefix = Number(bits);
  if (!/^(0|[1-9]\d*)$/.test(bits) || prefix > widthOf(address.family)) return failure(`bad bits after slash: ${JSON.stringify(bits)}`);
  return { address, prefix };
}

function cidr(text: string): Network {
  const parsed = parseCIDR(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

const ipValue = (address: IPAddress) => opaqueValue('ip', formatIP(address));
const cidrValue = (network: Network) => opaqueValue('cidr', `${formatIP(network.address)}/${network.prefix}`);
const ipOf = (value: CelValue, operation: string) => ip(requireOpaque('ip', value, operation));
const cidrOf = (value: CelValue, operation: string) => cidr(requireOpaque('cidr', value, operation));

/** An IP given as an IP value or as a string (the `containsIP` overloads). */
function ipArgument(value: CelValue): IPAddress {
  return typeof value === 'string' ? ip(value) : ipOf(value, 'containsIP');
}

function ipPredicate(name: string, test: (address: IPAddress) => boolean): CelFunc {
  return celMethod(name, DYN, [], BOOL, function () {
    return test(ipOf(this, name));
  });
}

const isLoopback = (a: IPAddress) => (a.family === 4 ? a.bits >> 24n === 127n : a.bits === 1n);
const isMulticast = (a: IPAddress) => (a.family === 4 ? a.bits >> 28n === 0xen : a.bits >> 120n === 0xffn);
const isLinkLocalUnicast = (a: IPAddress) => (a.family === 4 ? a.bits >> 16n === 0xa9fen : a.bits >> 118n === 0x3fan);

/** Kubernetes' IP library (`ip()`, `isIP`, `ip.isCanonical`, `family()`, `isLoopback()`...). */
const ipFunctions: CelFunc[] = [
  celFunc('ip', [STRING], DYN, (text) => ipValue(ip(text))),
  celFunc('isIP', [STRING], BOOL, (text) => typeof parseIP(text) !== 'string'),
  celFunc('ip.isCanonical', [STRING], BOOL, (text) => formatIP(ip(text)) === text),
  celMethod('family', DYN, [], INT, function () {
    return BigInt(ipOf(this, 'family').family);
  }),
  ipPredicate('isUnspecified', (a) => a.bits === 0n),
  ipPredicate('isLoopback', isLoopback),
  ipPredicate('isLinkLocalMulticast', (a) => (a.family === 4 ? a.bits >> 8n === 0xe00000n : (a.bits >> 112n & 0xff0fn) === 0xff02n)),
  ipPredicate('isLinkLocalUnicast', isLinkLocalUnicast),
  ipPredicate(
    'isGlobalUnicast',
    (a) => a.bits !== 0n && !(a.family === 4 && a.bits === 0xffffffffn) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a),
  ),
];

/** Kubernetes' CIDR library (`cidr()`, `isCIDR`, `containsIP`, `containsCIDR`, `ip()`, `masked()`, `prefixLength()`). */
const cidrFunctions: CelFunc[] = [
  celFunc('cidr', [STRING], DYN, (text) => cidrValue(cidr(text))),
  celFunc('isCIDR', [STRING], BOOL, (text) => typeof parseCIDR(text) !== 'string'),
  celMethod('containsIP', DYN, [DYN], BOOL, function (other) {
    const network = cidrOf(this, 'containsIP');
    return inNetwork(network.address, network.prefix, ipArgument(other));
  }),
  celMethod('containsCIDR', DYN, [DYN], BOOL, function (other) {
    const network = cidrOf(this, 'containsCIDR');
    const inner = typeof other === 'string' ? cidr(other) : cidrOf(other, 'containsCIDR');
    return inner.prefix >= network.prefix && inNetwork(network.address, network.prefix, inner.address);
  }),
  celMethod('ip', DYN, [], DYN, function () {
    return ipValue(cidrOf(this, 'ip').address);
  }),
  celMethod('masked', DYN, [], DYN, function () {
    const network = cidrOf(this, 'masked');
    return cidrValue({ address: maskIP(network.address, network.prefix), prefix: network.prefix });
  }),
  celMethod('prefixLength', DYN, [], INT, function () {
    return BigInt(cidrOf(this, 'prefixLength').prefix);
  }),
];

/** `string(ip)` and `string(cidr)`. */
export function networkToString(value: CelValue): string | undefined {
  return opaqueText('ip', value) ?? opaqueText('cidr', value);
}

/** Kubernetes' IP and CIDR CEL libraries. */
export const networkLibrary: CelFunc[] = [...ipFunctions, ...cidrFunctions];
