import type { FieldError, KubeObject } from '@kapi/apimachinery';
import type { RequestScope, ResourceStrategy } from '@kapi/server';
import { nodePortsOf, type NodePortAllocator } from './node-port-allocator.js';
import type { ServiceRef } from './service-claims.js';
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
  healthCheckNodePort?: number;
  sessionAffinity?: string;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
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
  /** The stored Service of that name, read from storage (not the cache), if any. */
  stored?: (namespace: string, name: string) => Promise<KubeObject | undefined>;
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
/** A LoadBalancer Service with `externalTrafficPolicy: Local` has a health check node port. */
const hasHealthCheck = (spec: AllocatedSpec) =>
  typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
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
  // The objects whose admission allocated values, with the Service's spec before it (none on create).
  const allocatedFor = new WeakMap<KubeObject, AllocatedSpec | undefined>();
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
      if (
        previous.healthCheckNodePort &&
        spec.healthCheckNodePort &&
        spec.healthCheckNodePort !== previous.healthCheckNodePort
      )
        errors.push({
          field: 'spec.healthCheckNodePort',
          type: 'FieldValueInvalid',
          value: spec.healthCheckNodePort,
          detail: 'field is immutable',
        });
      return errors;
    },
    async admit(operation, object, old, scope) {
      // Admission of the request first (e.g. the namespace's lifecycle): a refusal holds nothing.
      await inner?.admit?.(operation, object, old, scope);
      if (operation !== 'create' && operation !== 'update') return;
      if (operation === 'create' && (await allocators.exists?.(scope.namespace, scope.name))) return;
      const spec = specOf(object);
      try {
        await allocate(allocators, spec, old && specOf(old), scope);
        if (!scope.dryRun) allocatedFor.set(object, old && specOf(old));
      } catch (error) {
        // As upstream's transaction: what this request allocated before failing is released.
        if (!scope.dryRun)
          await releaseNew(allocators, spec, old && specOf(old), {
            namespace: scope.namespace,
            name: scope.name,
          });
        throw error;
      }
    },
    async abandon(operation, object, old, scope) {
      await inner?.abandon?.(operation, object, old, scope);
      if (!allocatedFor.has(object)) return;
      const previous = allocatedFor.get(object);
      allocatedFor.delete(object);
      // What a Service of that name holds now stays (another request of the same name may have won the
      // race and hold the same values): the rest of what this request allocated is released.
      const stored = await allocators.stored?.(scope.namespace, scope.name);
      await releaseNew(allocators, specOf(object), previous, { namespace: scope.namespace, name: scope.name }, stored && specOf(stored));
    },
  };
}

/** Allocates what `spec` holds and `previous` (the stored Service, on update) did not: cluster IP, node ports, health check port. */
async function allocate(
  allocators: ServiceAllocators,
  spec: AllocatedSpec,
  previous: AllocatedSpec | undefined,
  scope: RequestScope,
): Promise<void> {
  const service = { namespace: scope.namespace, name: scope.name };
  if (!previous || !hasClusterIP(previous)) await allocateClusterIP(allocators.clusterIPs, spec, scope);
  if (hasNodePorts(spec)) await allocateNodePorts(allocators.nodePorts, spec, service, scope.dryRun);
  if (hasHealthCheck(spec)) {
    if (spec.healthCheckNodePort)
      await allocators.nodePorts.allocate(
        spec.healthCheckNodePort,
        service,
        'spec.healthCheckNodePort',
        scope.dryRun,
      );
    else spec.healthCheckNodePort = await allocators.nodePorts.allocateNext(service, scope.dryRun);
  }
}

/**
 * Releases the values `spec` names that neither `previous` nor `kept` holds (each only if `service`
 * holds it).
 */
async function releaseNew(
  allocators: ServiceAllocators,
  spec: AllocatedSpec,
  previous: AllocatedSpec | undefined,
  service: ServiceRef,
  kept?: AllocatedSpec,
): Promise<void> {
  const ignore = () => undefined;
  const held = [previous, kept].filter((other): other is AllocatedSpec => other !== undefined);
  const heldPorts = new Set(held.flatMap((other) => nodePortsOf({ metadata: {}, spec: other })));
  if (
    spec.clusterIP &&
    spec.clusterIP !== 'None' &&
    !held.some((other) => hasClusterIP(other) && other.clusterIP === spec.clusterIP)
  )
    await allocators.clusterIPs.release(spec.clusterIP, service).catch(ignore);
  for (const port of nodePortsOf({ metadata: {}, spec })) {
    if (!heldPorts.has(port)) await allocators.nodePorts.release(port, service).catch(ignore);
  }
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
  if (hasHealthCheck(spec) && !spec.healthCheckNodePort && previous.healthCheckNodePort)
    spec.healthCheckNodePort = previous.healthCheckNodePort;
  if (!hasHealthCheck(spec) && unchanged('healthCheckNodePort')) delete spec.healthCheckNodePort;
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
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = ((spec.sessionAffinityConfig ??= {}).clientIP ??= {});
    clientIP.timeoutSeconds ??= defaultClientIPAffinitySeconds;
  }
}

/** Upstream's DefaultClientIPServiceAffinitySeconds (3 hours). */
const defaultClientIPAffinitySeconds = 10800;

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
    const policies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
    if (spec.ipFamilyPolicy !== undefined && !policies.includes(spec.ipFamilyPolicy))
      errors.push({
        field: 'spec.ipFamilyPolicy',
        type: 'FieldValueNotSupported',
        value: spec.ipFamilyPolicy,
        detail: `supported values: ${policies.map((policy) => JSON.stringify(policy)).join(', ')}`,
      });
    // As upstream's allocator on a single-stack IPv4 cluster.
    if (spec.ipFamilyPolicy === 'RequireDualStack')
      errors.push({
        field: 'spec.ipFamilyPolicy',
        type: 'FieldValueInvalid',
        value: spec.ipFamilyPolicy,
        detail: 'this cluster is not configured for dual-stack services',
      });
    (spec.ipFamilies ?? []).forEach((family, index) => {
      if (family === 'IPv4') return;
      const field = `spec.ipFamilies[${index}]`;
      if (family === 'IPv6')
        errors.push({ field, type: 'FieldValueInvalid', value: family, detail: 'not configured on this cluster' });
      else
        errors.push({ field, type: 'FieldValueNotSupported', value: family, detail: 'supported values: "IPv4", "IPv6"' });
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
  for (const field of ['externalTrafficPolicy', 'internalTrafficPolicy'] as const) {
    const value = spec[field];
    if (value !== undefined && value !== 'Cluster' && value !== 'Local')
      errors.push({
        field: `spec.${field}`,
        type: 'FieldValueNotSupported',
        value,
        detail: 'supported values: "Cluster", "Local"',
      });
  }
  if (spec.healthCheckNodePort && !hasHealthCheck(spec))
    errors.push({
      field: 'spec.healthCheckNodePort',
      type: 'FieldValueInvalid',
      value: spec.healthCheckNodePort,
      detail: "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    });
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
