import { isIP } from 'node:net';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  validateLabels,
  type FieldError,
  type KubeObject,
} from '@kapi/apimachinery';

// Upstream's ValidateService (pkg/apis/core/validation) for what a Service holds here: types, ports,
// selector, session affinity, external IPs and source ranges. Cluster IPs, IP families and node port
// ranges are the allocation strategy's (service-allocation-strategy.ts).

interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

interface ServiceSpec {
  type?: string;
  ports?: ServicePort[];
  clusterIP?: string;
  clusterIPs?: string[];
  externalName?: string;
  externalIPs?: string[];
  selector?: Record<string, unknown>;
  sessionAffinity?: string;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
  loadBalancerSourceRanges?: string[];
}

const specOf = (object: KubeObject) => (object['spec'] ?? {}) as ServiceSpec;
const supported = (values: string[]) => `supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`;

/** Upstream's MaxClientIPServiceAffinitySeconds (a day). */
const maxClientIPAffinitySeconds = 86400;

/** Upstream's defaulting of ports: a missing, zero or empty targetPort is the port itself. */
export function defaultServicePorts(object: KubeObject): void {
  for (const port of specOf(object).ports ?? [])
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '')
      port.targetPort = port.port;
}

/** Upstream's IsValidPortNum. */
function portNumberErrors(port: unknown): string[] {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535
    ? []
    : ['must be between 1 and 65535, inclusive'];
}

/** Upstream's IsValidPortName (an IANA_SVC_NAME). */
export function portNameErrors(name: string): string[] {
  const errors: string[] = [];
  if (name.length > 15) errors.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name))
    errors.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errors.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errors.push("must not contain consecutive hyphens (e.g. 'a--b')");
  if (name.startsWith('-') || name.endsWith('-')) errors.push('must not begin or end with a hyphen');
  return errors;
}

/** Upstream's ValidateNonSpecialIP: why `ip` (a valid address) may not be an external IP, if it may not. */
function specialIPError(ip: string): string | undefined {
  if (ip === '0.0.0.0' || ip === '::') return `may not be unspecified (${ip})`;
  if (ip.startsWith('127.') || ip === '::1') return 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
  if (ip.startsWith('169.254.') || /^fe[89ab][0-9a-f]:/i.test(ip))
    return 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
  if (ip.startsWith('224.0.0.') || /^ff02:/i.test(ip))
    return 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
  return undefined;
}

/** Upstream's IsValidCIDR. */
function isCIDR(value: string): boolean {
  const [address, bits, extra] = value.split('/');
  if (extra !== undefined || address === undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  const family = isIP(address);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

function validatePorts(spec: ServiceSpec, errors: FieldError[]): void {
  const protocols = ['SCTP', 'TCP', 'UDP'];
  const ports = spec.ports ?? [];
  const names = new Set<string>();
  const seen = new Set<string>();
  const nodePorts = new Set<string>();
  ports.forEach((port, index) => {
    const path = `spec.ports[${index}]`;
    if (port.name) {
      for (const detail of isDNS1123Label(port.name))
        errors.push({ field: `${path}.name`, type: 'FieldValueInvalid', value: port.name, detail });
      if (names.has(port.name))
        errors.push({ field: `${path}.name`, type: 'FieldValueDuplicate', value: port.name, detail: '' });
      names.add(port.name);
    } else if (ports.length > 1) {
      errors.push({ field: `${path}.name`, type: 'FieldValueRequired', detail: '' });
    }
    for (const detail of portNumberErrors(port.port))
      errors.push({ field: `${path}.port`, type: 'FieldValueInvalid', value: port.port, detail });
    if (port.protocol !== undefined && !protocols.includes(port.protocol))
      errors.push({
        field: `${path}.protocol`,
        type: 'FieldValueNotSupported',
        value: port.protocol,
        detail: supported(protocols),
      });
    const target = port.targetPort;
    const targetErrors = typeof target === 'string' ? portNameErrors(target) : portNumberErrors(target);
    for (const detail of target === undefined ? [] : targetErrors)
      errors.push({ field: `${path}.targetPort`, type: 'FieldValueInvalid', value: target, detail });
    if (port.appProtocol !== undefined)
      for (const detail of isQualifiedName(port.appProtocol))
        errors.push({ field: `${path}.appProtocol`, type: 'FieldValueInvalid', value: port.appProtocol, detail });
    const protocol = port.protocol ?? 'TCP';
    const key = `${protocol}/${port.port}`;
    if (seen.has(key))
      errors.push({ field: path, type: 'FieldValueDuplicate', value: { port: port.port, protocol }, detail: '' });
    seen.add(key);
    if (port.nodePort) {
      const nodeKey = `${protocol}/${port.nodePort}`;
      if (nodePorts.has(nodeKey))
        errors.push({ field: `${path}.nodePort`, type: 'FieldValueDuplicate', value: port.nodePort, detail: '' });
      nodePorts.add(nodeKey);
    }
  });
}

function validateSessionAffinity(spec: ServiceSpec, errors: FieldError[]): void {
  const affinity = spec.sessionAffinity ?? 'None';
  const config = spec.sessionAffinityConfig;
  if (affinity !== 'ClientIP' && affinity !== 'None') {
    errors.push({
      field: 'spec.sessionAffinity',
      type: 'FieldValueNotSupported',
      value: affinity,
      detail: supported(['ClientIP', 'None']),
    });
  } else if (affinity === 'None' && config !== undefined) {
    errors.push({
      field: 'spec.sessionAffinityConfig',
      type: 'FieldValueForbidden',
      detail: 'must not be set when session affinity is None',
    });
  } else if (affinity === 'ClientIP') {
    // The strategy defaults the timeout; a value given must be in range.
    const timeout = config?.clientIP?.timeoutSeconds;
    if (timeout !== undefined && (timeout <= 0 || timeout > maxClientIPAffinitySeconds))
      errors.push({
        field: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
        type: 'FieldValueInvalid',
        value: timeout,
        detail: `must be greater than 0 and less than ${maxClientIPAffinitySeconds}`,
      });
  }
}

function validateAddresses(spec: ServiceSpec, type: string, errors: FieldError[]): void {
  (spec.externalIPs ?? []).forEach((ip, index) => {
    const field = `spec.externalIPs[${index}]`;
    const detail =
      isIP(ip) === 0 ? 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' : specialIPError(ip);
    if (detail) errors.push({ field, type: 'FieldValueInvalid', value: ip, detail });
  });
  const ranges = spec.loadBalancerSourceRanges ?? [];
  if (ranges.length === 0) return;
  // Upstream's field path, capital L included.
  const path = 'spec.LoadBalancerSourceRanges';
  if (type !== 'LoadBalancer')
    errors.push({ field: path, type: 'FieldValueForbidden', detail: "may only be used when `type` is 'LoadBalancer'" });
  ranges.forEach((range, index) => {
    // As upstream: values may be space-padded (a leftover of the annotation).
    if (!isCIDR(range.trim()))
      errors.push({
        field: `${path}[${index}]`,
        type: 'FieldValueInvalid',
        value: range,
        detail: 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      });
  });
}

/** Upstream's ValidateService, but for cluster IPs, IP families and node port ranges (the allocation strategy's). */
export function validateService(object: KubeObject): FieldError[] {
  const spec = specOf(object);
  const errors: FieldError[] = [];
  const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
  const type = spec.type ?? 'ClusterIP';
  if (!types.includes(type))
    errors.push({ field: 'spec.type', type: 'FieldValueNotSupported', value: type, detail: supported(types) });
  const headless = (spec.clusterIPs?.[0] ?? spec.clusterIP) === 'None';
  if (type !== 'ExternalName' && !headless && !spec.ports?.length)
    errors.push({ field: 'spec.ports', type: 'FieldValueRequired', detail: '' });
  if (headless && (type === 'NodePort' || type === 'LoadBalancer'))
    errors.push({
      field: 'spec.clusterIPs[0]',
      type: 'FieldValueInvalid',
      value: 'None',
      detail: `may not be set to 'None' for ${type} services`,
    });
  if (type === 'ExternalName') {
    // As upstream: a trailing dot (a fully qualified name) is allowed.
    const cname = (spec.externalName ?? '').replace(/\.$/, '');
    if (!cname) errors.push({ field: 'spec.externalName', type: 'FieldValueRequired', detail: '' });
    for (const detail of cname ? isDNS1123Subdomain(cname) : [])
      errors.push({ field: 'spec.externalName', type: 'FieldValueInvalid', value: cname, detail });
  }
  validatePorts(spec, errors);
  if (spec.selector !== undefined) errors.push(...validateLabels(spec.selector, 'spec.selector'));
  validateSessionAffinity(spec, errors);
  validateAddresses(spec, type, errors);
  return errors;
}
