export { apiServiceKind, apiregistrationGroup } from './apiservice-kind.js';
export type { APIService } from './apiservice-kind.js';
export { validateAPIService, validateAPIServiceStatus } from './apiservice-validation.js';
export { apiServiceResource, localAvailableCondition } from './apiservice-resource.js';
export { localAPIServices, automanagedLabel, builtInGroupPriority, customResourcePriority } from './local-apiservices.js';
export { registerAPIServices, unregisterAPIServices } from './register-apiservices.js';
export { AggregationLayer } from './aggregation-layer.js';
export type { AggregationLayerOptions } from './aggregation-layer.js';
export { withAggregatorProxy } from './with-aggregator-proxy.js';
export type { AggregatorProxyOptions, ProxyLookup } from './with-aggregator-proxy.js';
export { AvailabilityController } from './availability-controller.js';
export type { AvailabilityControllerOptions } from './availability-controller.js';
export { AggregatorInformers } from './aggregator-informers.js';
export { AggregatedDiscovery } from './aggregated-discovery.js';
export { BackendAgents, identityHeaders, escapeExtraKey } from './backend-transport.js';
export type { ProxyClientCertificate } from './backend-transport.js';
export { resolveEndpoint, isEndpointFailure, serviceNameLabel } from './endpoint-resolver.js';
export type { ServiceLookup, ResolvedEndpoint, EndpointFailure } from './endpoint-resolver.js';
export { webhookServiceResolver } from './webhook-service-resolver.js';
export type { WebhookServiceReference } from './webhook-service-resolver.js';
export { backendGet, aggregatorCheckIdentity } from './discovery-check.js';
export type { BackendAnswer } from './discovery-check.js';
export { ensureFrontProxyCertificates, frontProxyClientName } from './front-proxy-certificates.js';
export type { FrontProxyCertificates } from './front-proxy-certificates.js';
export {
  extensionAPIServerAuthenticationConfigMap,
  extensionAPIServerAuthenticationName,
  publishExtensionAPIServerAuthentication,
} from './extension-apiserver-authentication.js';
export type { ExtensionAPIServerAuthentication } from './extension-apiserver-authentication.js';
