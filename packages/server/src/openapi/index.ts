export { createOpenAPIHandler, buildOpenAPIV2, buildOpenAPIV3, openAPIV3Paths } from './openapi-handler.js';
export type { OpenAPIOptions, OpenAPIV2Part } from './openapi-handler.js';
export { defaultDefinitionName, normalizeSchema } from './openapi-schemas.js';
export type { DefinitionNamer, OpenAPIFlavour } from './openapi-schemas.js';
export { metaDefinitions, metaNames } from './meta-definitions.js';
export type { JSONSchema } from './meta-definitions.js';
export { operationGroupName } from './openapi-paths.js';
