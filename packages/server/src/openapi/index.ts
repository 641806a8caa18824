export { createOpenAPIHandler, buildOpenAPIV2, buildOpenAPIV3, buildOpenAPIV3Root, openAPIV3Paths } from './openapi-handler.js';
export { serviceAccountIssuerDiscoveryDocuments } from './root-documents.js';
export type { OpenAPIOptions, OpenAPIV2Part } from './openapi-handler.js';
export { defaultDefinitionName, normalizeSchema } from './openapi-schemas.js';
export type { DefinitionNamer, OpenAPIFlavour } from './openapi-schemas.js';
export { metaDefinitions, metaNames } from './meta-definitions.js';
export type { JSONSchema } from './meta-definitions.js';
export { operationGroupName } from './openapi-paths.js';
