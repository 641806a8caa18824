export { GenericAPIServerConfig, CompletedConfig } from './generic-apiserver-config.js';
export type { GenericAPIServerOptions, CompletedOptions } from './generic-apiserver-config.js';
export { GenericAPIServer } from './generic-apiserver.js';
export { serveInProcess, type InProcessRequest, type InProcessAnswer } from './in-process-exchange.js';
export type { AggregatedDiscoverySource, ListenOptions, LoopbackClientConfig } from './generic-apiserver.js';
export type { StorageFactory, StorageFactoryRequest } from './storage-factory.js';
export type { SchemeLike, CodecForOptions } from './scheme-like.js';
export type {
  Verb,
  PrinterColumn,
  RequestScope,
  ResourceStrategy,
  ScaleSubresource,
  ExternalSubresource,
  ResourceDefinition,
  VersionOverrides,
} from './resource-definition.js';
export { definitionAt } from './resource-definition.js';

export { GenericStore } from './registry/generic-store.js';
export type {
  GenericStoreOptions,
  WriteContext,
  ListParameters,
  UpdateInput,
  DeleteResult,
} from './registry/generic-store.js';
export { resourcePrefix, objectKey, listKey } from './registry/storage-keys.js';
export type { AsyncConverter } from './registry/async-converter.js';

export { handleResourceRequest, resourceVerb } from './handlers/resource-handler.js';
export type { ResourceRoute, HandlerEnvironment } from './handlers/resource-handler.js';
export { parseResourcePath } from './handlers/resource-path.js';
export type { ResourcePath } from './handlers/resource-path.js';
export { MAX_REQUEST_BODY_BYTES, readBody, decodeObjectBody, mediaType } from './handlers/request-body.js';
export type { ProtobufBodyDecoder } from './handlers/request-body.js';
export { parseReadQuery, parseWriteQuery } from './handlers/query-options.js';
export type { FieldValidation, ReadQuery, WriteQuery } from './handlers/query-options.js';
export {
  buildTable,
  negotiateResponseForm,
  parseIncludeObject,
  partialObjectMetadata,
} from './handlers/table.js';
export type { IncludeObject, ResponseForm } from './handlers/table.js';
export { evaluateJsonPath } from './handlers/json-path.js';
export { humanDuration } from './handlers/human-duration.js';
export { WatchRegistry, serveWatch, defaultWatchTimeoutSeconds } from './handlers/watch-handler.js';
export type { PreSerializedWatchEvent } from './handlers/watch-handler.js';
export { warningHeader } from './handlers/response-writer.js';

export {
  applyJsonPatch,
  parseJsonPatch,
  parseJsonPointer,
  MAX_JSON_PATCH_OPERATIONS,
} from './patch/json-patch.js';
export type { JsonPatchOperation } from './patch/json-patch.js';
export { applyMergePatch, mergePatch } from './patch/merge-patch.js';
export { applyStrategicMergePatch } from './patch/strategic-merge-patch.js';
export type { SchemaNode } from './patch/strategic-merge-patch.js';

export {
  createDiscoveryHandler,
  negotiateDiscovery,
  aggregatedDiscoveryMediaType,
  aggregatedDiscoveryDocument,
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
  servedGroups,
  servedVerbs,
} from './discovery/index.js';
export type {
  DiscoveryHandlerOptions,
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
} from './discovery/index.js';
export {
  createOpenAPIHandler,
  buildOpenAPIV2,
  buildOpenAPIV3,
  buildOpenAPIV3Root,
  openAPIV3Paths,
  serviceAccountIssuerDiscoveryDocuments,
  defaultDefinitionName,
  normalizeSchema,
  metaDefinitions,
  metaNames,
  operationGroupName,
} from './openapi/index.js';
export type { OpenAPIOptions, OpenAPIV2Part, DefinitionNamer, OpenAPIFlavour, JSONSchema } from './openapi/index.js';
export { HealthRegistry, withCheckTimeout } from './health/index.js';
export type {
  HealthCheck,
  HealthCheckEndpoints,
  HealthCheckResult,
  HealthEndpoint,
  HealthRegistryOptions,
  PostStartHook,
  PostStartHookContext,
} from './health/index.js';
export {
  ServerMetrics,
  canonicalVerb,
  requestDurationBuckets,
  storageDurationBuckets,
} from './metrics/index.js';
export type {
  InFlightKind,
  ObservedRequest,
  RequestMetricLabels,
  ServerMetricsOptions,
} from './metrics/index.js';
export {
  ensureCertificates,
  ensureClientCertificate,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  readCertificatePair,
  writeCertificatePair,
} from './tls/index.js';
export type {
  CertificateAndKey,
  ClientCertificateOptions,
  EnsureCertificatesOptions,
  EnsureClientCertificateOptions,
  ServerCertificates,
} from './tls/index.js';
export { KUBERNETES_VERSION, versionInfo, createVersionHandler } from './version.js';
export type { VersionInfo } from './version.js';
export { kubeconfigDocument, writeKubeconfig } from './kubeconfig.js';
export { runServerCommand } from './command/run-server-command.js';
export { tuneGarbageCollector } from './command/gc-tuning.js';
export type { ServerCommand, StoppableServer } from './command/run-server-command.js';
export type { KubeconfigUser, KubeconfigOptions } from './kubeconfig.js';

export type { AuditLogOptions } from './audit/index.js';
export { AuditLogWriter, loadAuditPolicyFile } from './audit/index.js';
