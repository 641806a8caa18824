import type { FieldError } from '@kapi/apimachinery';
import type { JSONSchemaProps } from './json-schema-props.js';
import type { CompiledSchema } from './compiled-schema.js';
import type { SchemaNode } from './schema-node.js';
import { pruneObjectInPlace, unknownFieldPaths } from './prune.js';
import { applyDefaultsInPlace } from './defaults.js';
import { hasOnlyDeclaredFields, isPrunedAndDefaulted } from './normalized.js';
import { bodySchemaOf, compileOpenAPIValidation } from './validate-object.js';
import { ratchetErrors } from './ratchet.js';
import { compileRules } from '../cel/rule-tree.js';
import { evaluateRules } from '../cel/evaluate-rules.js';

/** Error types after which upstream does not run CEL rules (their input would not have the schema's shape). */
const blockingTypes = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

const notCheckedMessage =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/**
 * Compiles a CRD version's structural schema once: pruning, defaulting, OpenAPI validation and its CEL rules
 * (rules that do not compile are left out; `validateCustomResourceSchema` refuses such CRDs).
 */
export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  const node = schema as SchemaNode;
  const validateOpenAPI = compileOpenAPIValidation(bodySchemaOf(node));
  const rules = compileRules(schema);
  const messageExpressions = rules.programs.filter((program) =>
    program.rule.messageExpression?.trim(),
  ).length;
  return {
    prune: (object) => pruneObjectInPlace(object, node),
    // Most objects have none: a walk that builds no paths says so first.
    unknownFields: (object) => (hasOnlyDeclaredFields(object, node) ? [] : unknownFieldPaths(object, node)),
    applyDefaults: (object) => applyDefaultsInPlace(object, node),
    isPrunedAndDefaulted: (object) => isPrunedAndDefaulted(object, node),
    validate(object, old) {
      const found = validateOpenAPI(object);
      const errors: FieldError[] = old === undefined ? found : ratchetErrors(found, object, old);
      if (rules.root === undefined) return errors;
      if (errors.some((error) => blockingTypes.has(error.type))) {
        errors.push({ field: '<nil>', type: 'FieldValueInvalid', value: null, detail: notCheckedMessage });
        return errors;
      }
      errors.push(...evaluateRules(rules.root, object, old));
      return errors;
    },
    celRuleCount: rules.programs.length + messageExpressions,
  };
}
