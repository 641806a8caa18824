export {};
export type { JSONSchemaProps, ValidationRule, ExternalDocumentation } from './schema/json-schema-props.js';
export type { CompiledSchema, SchemaValidationResult, SchemaValidationOptions } from './schema/compiled-schema.js';
export { compileSchema } from './schema/compile-schema.js';
export { validateCustomResourceSchema } from './schema/validate-custom-resource-schema.js';
