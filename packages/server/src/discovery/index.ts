export { createDiscoveryHandler, negotiateDiscovery, aggregatedDiscoveryMediaType } from './discovery-handler.js';
export type { DiscoveryHandlerOptions } from './discovery-handler.js';
export {
  aggregatedDiscoveryDocument,
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
  byGroupPriority,
  servedGroups,
  servedVerbs,
} from './discovery-documents.js';
export type {
  APIGroup,
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIResource,
  APIResourceDiscovery,
  APIResourceList,
  GroupVersionForDiscovery,
  InstalledResource,
  ServedGroup,
  ServerAddressByClientCIDR,
} from './discovery-documents.js';
