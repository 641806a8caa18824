import { isEndpointFailure, resolveEndpoint, type EndpointFailure, type ServiceLookup } from './endpoint-resolver.js';

/** A webhook's `clientConfig.service` (conversion or admission): the Service and its port. */
export interface WebhookServiceReference {
  namespace: string;
  name: string;
  port: number;
}

/** Upstream's ResolveEndpoint error for a failure the aggregator's resolver reports. */
function failureText(failure: EndpointFailure, service: WebhookServiceReference): string {
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
 * Resolves webhooks' `clientConfig.service` (conversion and admission webhooks) as the aggregator
 * resolves APIServices' services: the Service's port, then a ready address of its EndpointSlices
 * (upstream's endpoint routing). Pass it as `@kapi/apiextensions`' `ServiceResolver`.
 */
export function webhookServiceResolver(lookup: ServiceLookup): (service: WebhookServiceReference) => { host: string; port: number } {
  return (service) => {
    const apiService = { metadata: {}, spec: { service, groupPriorityMinimum: 0, versionPriority: 0 } };
    const endpoint = resolveEndpoint(apiService, lookup);
    if (isEndpointFailure(endpoint)) throw new Error(failureText(endpoint, service));
    return { host: endpoint.host, port: endpoint.port };
  };
}
