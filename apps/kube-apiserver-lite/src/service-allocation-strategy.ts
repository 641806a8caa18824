import type { FieldError, KubeObject } from '@kapi/apimachinery';
import type { RequestScope, ResourceStrategy } from '@kapi/server';
import type { NodePortAllocator } from './node-port-allocator.js';
import type { ServiceIPAllocator } from './service-ip-allocator.js';
import { parseIPv4 } from './service-ip-range.js';

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  nodePort?: number;
}

interface AllocatedSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  internalTrafficPolicy?: string;
  externalTrafficPolicy?: string;
  allocateLoadBalancerNodePorts?: boolean;
  loadBalancerClass?: string;
  ports?: ServicePort[];
}

/** The allocators a Service's values come from. */
export interface ServiceAllocators {
  clusterIPs: ServiceIPAllocator;
  nodePorts: NodePortAllocator;
  /**
   * Whether the Service exists already: a create of an existing name fails after admission, and
   * allocating first would hold values until the repair releases them.
   */
  exists?: (namespace: string, name: string) => Promise<boolean>;
}

const specOf = (object: KubeObject): AllocatedSpec => {
  if (typeof object['spec'] !== 'object' || object['spec'] === null) object['spec'] = {};
  return object['spec'] as AllocatedSpec;
};

const typeOf = (spec: AllocatedSpec) => spec.type ?? 'ClusterIP';
/** Every type but ExternalName has a cluster IP (or is headless). */
const hasClusterIP = (spec: AllocatedSpec) => typeOf(spec) !== 'ExternalName';
/** NodePort Services, and LoadBalancer ones unless `allocateLoadBalancerNodePorts` is false, have node ports. */
const hasNodePorts = (spec: AllocatedSpec) =>
  typeOf(spec) === 'NodePort' ||
  (typeOf(spec) === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
const samePort = (a: ServicePort, b: ServicePort) =>
  a.port === b.port && (a.protocol ?? 'TCP') === (b.protocol ?? 'TCP');

/**
 * Services' cluster IPs and node ports on top of `inner` (the resource's own strategy), as upstream's
 * service REST: a create gets an address of the service range unless it names one (kept when free and
 * in range) or is headless (`None`), and each port of a NodePort or LoadBalancer Service a node port
 * the same way. An update that leaves them out keeps the allocated ones, a cluster IP may not change,
 * and a type change drops what the new type has no use for. `clusterIP` and `clusterIPs` are kept in
 * step, and upstream's single-stack IPv4 and traffic policy defaults are set. Values are released by
 * {@link ServiceAllocationRepair} once their Service is gone or drops them.
 */
export function serviceAllocationStrategy(
  inner: ResourceStrategy | undefined,
  allocators: ServiceAllocators,
): ResourceStrategy {
  return {
    ...inner,
    prepareForCreate(object, scope) {
      inner?.prepareForCreate?.(object, scope);
      applyDefaults(specOf(object));
    },
    prepareForUpdate(object, old, scope) {
      inner?.prepareForUpdate?.(object, old, scope);
      keepAllocated(specOf(object), specOf(old));
      applyDefaults(specOf(object));
    },
    validate(object, scope) {
      return [...(inner?.validate?.(object, scope) ?? []), ...validateAllocated(specOf(object))];
    },
    validateUpdate(object, old, scope) {
      const errors = [
        ...(inner?.validateUpdate?.(object, old, scope) ?? []),
        ...validateAllocated(specOf(object)),
      ];
      const spec = specOf(object);
      const previous = specOf(old);
      if (
        hasClusterIP(spec) &&
        hasClusterIP(previous) &&
        previous.clusterIP &&
        spec.clusterIP !== previous.clusterIP
      ) {
        errors.push({
          field: 'spec.clusterIPs[0]',
          type: 'FieldValueInvalid',
          value: spec.clusterIP ?? '',
          detail: 'may not change once set',
        });
      }
      return errors;
    },
    async admit(operation, object, old, scope) {
      const taken = operation === 'create' && (await allocators.exists?.(scope.namespace, scope.name));
      if (!taken && (operation === 'create' || operation === 'update')) {
        const spec = specOf(object);
        const service = { namespace: scope.namespace, name: scope.name };
        if (operation === 'create' || (old && !hasClusterIP(specOf(old))))
          await allocateClusterIP(allocators.clusterIPs, spec, scope);
        if (hasNodePorts(spec)) await allocateNodePorts(allocators.nodePorts, spec, service, scope.dryRun);
      }
      await inner?.admit?.(operation, object, old, scope);
    },
  };
}

/** Allocates `spec`'s cluster IP (the one it names, or the next free one) unless it has none or is headless. */
async function allocateClusterIP(
  allocator: ServiceIPAllocator,
  spec: AllocatedSpec,
  scope: RequestScope,
): Promise<void> {
  if (!hasClusterIP(spec) || spec.clusterIP === 'None') return;
  const service = { namespace: scope.namespace, name: scope.name };
  if (spec.clusterIP) await allocator.allocate(spec.clusterIP, service, scope.dryRun);
  else spec.clusterIP = await allocator.allocateNext(service, scope.dryRun);
  spec.clusterIPs = [spec.clusterIP];
}

/** Allocates each port's node port: the one it names (kept when the Service holds it already), or the next free one. */
async function allocateNodePorts(
  allocator: NodePortAllocator,
  spec: AllocatedSpec,
  service: { namespace: string; name: string },
  dryRun: boolean,
): Promise<void> {
  const ports = spec.ports ?? [];
  for (const [index, port] of ports.entries()) {
    if (port.nodePort)
      await allocator.allocate(port.nodePort, service, `spec.ports[${index}].nodePort`, dryRun);
    else {
      // A port number served over several protocols shares one node port, as upstream allows.
      const sibling = ports.find((other) => other !== port && other.port === port.port && other.nodePort);
      port.nodePort = sibling?.nodePort ?? (await allocator.allocateNext(service, dryRun));
    }
  }
}

/**
 * Upstream's patchAllocatedValues and dropTypeDependentFields: a PUT (or apply) without the allocated
 * cluster IP or node ports keeps them; what a new type has no use for (its cluster IP for ExternalName,
 * node ports, the traffic policy and load balancer fields) is dropped when the request left it as it was.
 */
function keepAllocated(spec: AllocatedSpec, previous: AllocatedSpec): void {
  const unchanged = <K extends keyof AllocatedSpec>(key: K) =>
    JSON.stringify(spec[key]) === JSON.stringify(previous[key]);
  if (
    hasClusterIP(spec) &&
    hasClusterIP(previous) &&
    !spec.clusterIP &&
    !spec.clusterIPs?.length &&
    previous.clusterIP
  ) {
    spec.clusterIP = previous.clusterIP;
    spec.clusterIPs = previous.clusterIPs ?? [previous.clusterIP];
  }
  if (!hasClusterIP(spec) && hasClusterIP(previous) && unchanged('clusterIP')) {
    delete spec.clusterIP;
    delete spec.clusterIPs;
  }
  for (const port of spec.ports ?? []) {
    const before = (previous.ports ?? []).find((old) => samePort(old, port));
    if (!before?.nodePort) continue;
    if (hasNodePorts(spec) && !port.nodePort) port.nodePort = before.nodePort;
    else if (!hasNodePorts(spec) && hasNodePorts(previous) && port.nodePort === before.nodePort)
      delete port.nodePort;
  }
  const externallyFacing = (type: string) => type === 'NodePort' || type === 'LoadBalancer';
  if (!externallyFacing(typeOf(spec)) && unchanged('externalTrafficPolicy'))
    delete spec.externalTrafficPolicy;
  if (typeOf(spec) !== 'LoadBalancer') {
    if (unchanged('allocateLoadBalancerNodePorts')) delete spec.allocateLoadBalancerNodePorts;
    if (unchanged('loadBalancerClass')) delete spec.loadBalancerClass;
  }
}

/** Upstream's single-stack defaults, its traffic policy defaults, and `clusterIP` / `clusterIPs` filled from each other. */
function applyDefaults(spec: AllocatedSpec): void {
  if (!hasClusterIP(spec)) {
    delete spec.ipFamilies;
    delete spec.ipFamilyPolicy;
    return;
  }
  const [first] = spec.clusterIPs ?? [];
  if (!spec.clusterIP && first) spec.clusterIP = first;
  if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
  spec.internalTrafficPolicy ??= 'Cluster';
  if (typeOf(spec) === 'NodePort' || typeOf(spec) === 'LoadBalancer')
    spec.externalTrafficPolicy ??= 'Cluster';
  if (typeOf(spec) === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
}

/** What upstream's validation says of the cluster IPs and node ports a single-stack IPv4 server holds. */
function validateAllocated(spec: AllocatedSpec): FieldError[] {
  const errors: FieldError[] = [];
  const ips = spec.clusterIPs ?? [];
  if (!hasClusterIP(spec)) {
    if (spec.clusterIP || ips.length > 0)
      errors.push({
        field: 'spec.clusterIPs',
        type: 'FieldValueForbidden',
        detail: 'may not be set for ExternalName services',
      });
  } else {
    if (spec.clusterIP && ips.length > 0 && ips[0] !== spec.clusterIP)
      errors.push({
        field: 'spec.clusterIPs[0]',
        type: 'FieldValueInvalid',
        value: ips[0],
        detail: 'must match clusterIP when both are specified',
      });
    if (ips.length > 1)
      errors.push({
        field: 'spec.clusterIPs',
        type: 'FieldValueInvalid',
        value: ips,
        detail: 'this server serves single-stack IPv4 services: at most one cluster IP',
      });
    ips.forEach((ip, index) => {
      if (ip !== 'None' && parseIPv4(ip) === undefined)
        errors.push({
          field: `spec.clusterIPs[${index}]`,
          type: 'FieldValueInvalid',
          value: ip,
          detail: "must be empty, 'None', or a valid IPv4 address",
        });
    });
    if (spec.ipFamilies && spec.ipFamilies.some((family) => family !== 'IPv4'))
      errors.push({
        field: 'spec.ipFamilies',
        type: 'FieldValueInvalid',
        value: spec.ipFamilies,
        detail: 'this server serves single-stack IPv4 services',
      });
  }
  if (
    spec.externalTrafficPolicy !== undefined &&
    typeOf(spec) !== 'NodePort' &&
    typeOf(spec) !== 'LoadBalancer'
  )
    errors.push({
      field: 'spec.externalTrafficPolicy',
      type: 'FieldValueInvalid',
      value: spec.externalTrafficPolicy,
      detail: "may only be set when `type` is 'NodePort' or 'LoadBalancer'",
    });
  if (typeOf(spec) !== 'LoadBalancer') {
    for (const field of ['allocateLoadBalancerNodePorts', 'loadBalancerClass'] as const)
      if (spec[field] !== undefined)
        errors.push({
          field: `spec.${field}`,
          type: 'FieldValueForbidden',
          detail: "may only be used when `type` is 'LoadBalancer'",
        });
  }
  if (typeOf(spec) === 'ClusterIP' || typeOf(spec) === 'ExternalName') {
    (spec.ports ?? []).forEach((port, index) => {
      if (port.nodePort)
        errors.push({
          field: `spec.ports[${index}].nodePort`,
          type: 'FieldValueForbidden',
          detail: `may not be used when \`type\` is '${typeOf(spec)}'`,
        });
    });
  }
  return errors;
}
