import { isEndpointFailure, resolveEndpoint, type EndpointFailure, type ServiceLookup } from '@kapi/aggregator';
import type { ServiceReference, ServiceResolver } from '@kapi/apiextensions';

/** Upstream's ResolveEndpoint error for a failure the aggregator's resolver reports. */
function failureText(failure: EndpointFailure, service: ServiceReference): string {
  switch (failure.reason) {
    case 'ServiceNotFound':
      return `service "${service.name}" not found`;
    case 'ServicePortError':
      return `no service port ${service.port} found for service "${service.name}"`;
    default:
      return `no endpoints available for service "${service.name}"`;
  }
}

/**
 * Resolves conversion webhooks' `clientConfig.service` as the aggregator resolves APIServices' services
 * (the Service's port, then a ready address of its EndpointSlices, upstream's endpoint routing).
 */
export function webhookServiceResolver(lookup: ServiceLookup): ServiceResolver {
  return (service) => {
    const apiService = { metadata: {}, spec: { service, groupPriorityMinimum: 0, versionPriority: 0 } };
    const endpoint = resolveEndpoint(apiService, lookup);
    if (isEndpointFailure(endpoint)) throw new Error(failureText(endpoint, service));
    return { host: endpoint.host, port: endpoint.port };
  };
}
