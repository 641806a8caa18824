import type { KubeObject } from '@kapi/apimachinery';
import type { APIService } from './apiservice-kind.js';

/** The label an EndpointSlice carries with the name of its Service. */
export const serviceNameLabel = 'kubernetes.io/service-name';

/** What the resolver reads: Services and the EndpointSlices of a Service (an informer cache in practice). */
export interface ServiceLookup {
  service(namespace: string, name: string): KubeObject | undefined;
  /** The EndpointSlices labelled `kubernetes.io/service-name=<name>` in `namespace`. */
  endpointSlices(namespace: string, name: string): KubeObject[];
}

/** A backend address of a remote APIService. */
export interface ResolvedEndpoint {
  host: string;
  port: number;
  /** The TLS server name the backend's certificate must carry: `<service>.<namespace>.svc`. */
  serverName: string;
}

/** Why an APIService's service cannot be reached: upstream's Available=False reason and message. */
export interface EndpointFailure {
  reason: 'ServiceNotFound' | 'ServicePortError' | 'EndpointsNotFound' | 'MissingEndpoints';
  message: string;
}

interface ServicePort {
  name?: string;
  port?: number;
}

interface EndpointSlice {
  ports?: Array<{ name?: string; port?: number }>;
  endpoints?: Array<{ addresses?: string[]; conditions?: { ready?: boolean } }>;
}

/**
 * Resolves a remote APIService's `spec.service` to a ready endpoint address through its Service and
 * EndpointSlices (upstream's `--enable-aggregator-routing`): the Service port numbered `spec.service.port`
 * (default 443) gives a port name; an endpoint that is ready (or has no ready condition) in a slice with
 * that port name gives the address and target port. Several candidates are picked from at random.
 */
export function resolveEndpoint(apiService: APIService, lookup: ServiceLookup): ResolvedEndpoint | EndpointFailure {
  const reference = apiService.spec.service ?? {};
  const namespace = reference.namespace ?? '';
  const name = reference.name ?? '';
  const port = reference.port ?? 443;
  const service = lookup.service(namespace, name);
  if (!service) return { reason: 'ServiceNotFound', message: `service/${name} in "${namespace}" is not present` };
  const ports = ((service['spec'] as { ports?: ServicePort[] } | undefined)?.ports ?? []);
  const servicePort = ports.find((candidate) => candidate.port === port);
  if (!servicePort) {
    return { reason: 'ServicePortError', message: `service/${name} in "${namespace}" is not listening on port ${port}` };
  }
  const slices = lookup.endpointSlices(namespace, name) as EndpointSlice[];
  if (slices.length === 0) {
    return { reason: 'EndpointsNotFound', message: `cannot find endpointslices for service/${name} in "${namespace}"` };
  }
  const portName = servicePort.name ?? '';
  const candidates: Array<{ host: string; port: number }> = [];
  for (const slice of slices) {
    const slicePort = slice.ports?.find((candidate) => (candidate.name ?? '') === portName);
    if (slicePort?.port === undefined) continue;
    for (const endpoint of slice.endpoints ?? []) {
      if (endpoint.conditions?.ready === false) continue;
      for (const address of endpoint.addresses ?? []) candidates.push({ host: address, port: slicePort.port });
    }
  }
  const chosen = candidates[Math.floor(Math.random() * candidates.length)];
  if (!chosen) {
    return {
      reason: 'MissingEndpoints',
      message: `endpointslices for service/${name} in "${namespace}" have no addresses with port name "${portName}"`,
    };
  }
  return { ...chosen, serverName: `${name}.${namespace}.svc` };
}

/** True when {@link resolveEndpoint} found no address. */
export function isEndpointFailure(result: ResolvedEndpoint | EndpointFailure): result is EndpointFailure {
  return 'reason' in result;
}
