export {};
export type { JSONSchemaProps, ValidationRule, ExternalDocumentation } from './schema/json-schema-props.js';
export type { CompiledSchema, SchemaValidationResult, SchemaValidationOptions } from './schema/compiled-schema.js';
export { compileSchema } from './schema/compile-schema.js';
export { ComposedVariables, celCompilationCount, compileAdmissionExpression } from './cel/rule-program.js';
export { authorizerVariable, evaluateWithAuthorizer } from './cel/authorizer-library.js';
export type { CelAuthorizationCheck, CelAuthorizationDecision, CelAuthorizer } from './cel/authorizer-library.js';
export type { AdmissionExpression } from './cel/rule-program.js';
export { validateCustomResourceSchema } from './schema/validate-custom-resource-schema.js';
export type {
  CustomResourceDefinition,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionStatus,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionVersion,
  CustomResourceColumnDefinition,
  CustomResourceConversion,
} from './crd/types.js';
export { APIEXTENSIONS_GROUP, CLEANUP_FINALIZER } from './crd/types.js';
export { customResourceDefinitionKind, customResourceDefinitionResource } from './crd/resource.js';
export { validateCustomResourceDefinition } from './crd/validation.js';
export { CustomResourceHandler } from './customresource/custom-resource-handler.js';
export type { CustomResourceHooks } from './customresource/custom-resource-handler.js';
export { WebhookClient } from './conversion/webhook-client.js';
export type { ServiceResolver, ServiceReference, WebhookAnswer, WebhookClientConfig } from './conversion/webhook-client.js';
export { CustomResourceScheme } from './customresource/custom-resource-scheme.js';
export type { APIExtensionsServerOptions, APIExtensionsServer } from './apiextensions-server.js';
export { createAPIExtensionsServer, CRD_CONTROLLERS_HOOK } from './apiextensions-server.js';
