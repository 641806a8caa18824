import { fieldErrorMessage, validateAgainstSchema, type FieldError } from '@kapi/apimachinery';
import type { JSONSchemaProps } from './json-schema-props.js';
import type { SchemaValidationOptions, SchemaValidationResult } from './compiled-schema.js';
import { isRecord, propertySchemas, type SchemaNode } from './schema-node.js';
import { structuralErrors } from './structural-rules.js';
import { pruneValueInPlace } from './prune.js';
import { compileRules } from '../cel/rule-tree.js';
import {
  costErrorMessage,
  staticEstimatedCostLimit,
  staticEstimatedCRDCostLimit,
} from '../cel/cost-estimate.js';

/** Defaults must be pruned already (no unknown fields) and valid against their own schema. */
function defaultErrors(schema: SchemaNode, path: string, errors: FieldError[]): void {
  const value = schema['default'];
  if (value !== undefined) {
    const pruned = pruneValueInPlace(structuredClone(value), schema);
    if (pruned.length > 0)
      errors.push({
        field: `${path}.default`,
        type: 'FieldValueInvalid',
        value,
        detail: `must not have unknown fields: [${pruned.join(' ')}]`,
      });
    else errors.push(...validateAgainstSchema(value, schema, `${path}.default`));
  }
  for (const [name, child] of propertySchemas(schema))
    defaultErrors(child, `${path}.properties[${name}]`, errors);
  if (isRecord(schema['items'])) defaultErrors(schema['items'], `${path}.items`, errors);
  if (isRecord(schema['additionalProperties']))
    defaultErrors(schema['additionalProperties'], `${path}.additionalProperties`, errors);
}

/**
 * CRD-time checks of one version's `openAPIV3Schema`: structural rules, defaults, list/map types and CEL
 * compilation and cost, as field errors under `fieldPath` (`spec.versions[0].schema.openAPIV3Schema`).
 * Structural violations refuse a v1 CRD; with `preserveUnknownFieldsAllowed` (legacy objects) they are reported as
 * `nonStructural` reasons for the NonStructuralSchema condition instead.
 */
export function validateCustomResourceSchema(
  schema: JSONSchemaProps,
  fieldPath: string,
  options: SchemaValidationOptions = {},
): SchemaValidationResult {
  const node = schema as SchemaNode;
  const structural = structuralErrors(node, fieldPath);
  const errors: FieldError[] = [];
  const nonStructural: string[] = [];
  if (options.preserveUnknownFieldsAllowed === true) nonStructural.push(...structural.map(fieldErrorMessage));
  else errors.push(...structural);
  if (structural.length > 0) return { errors, nonStructural };
  defaultErrors(node, fieldPath, errors);
  const rules = compileRules(schema, fieldPath);
  errors.push(...rules.problems);
  let total = 0;
  for (const { path, program } of rules.located) {
    total += program.cost;
    if (program.cost > staticEstimatedCostLimit)
      errors.push({
        field: path,
        type: 'FieldValueForbidden',
        detail: costErrorMessage('estimated rule cost', program.cost, staticEstimatedCostLimit),
      });
  }
  if (total > staticEstimatedCRDCostLimit)
    errors.push({
      field: fieldPath,
      type: 'FieldValueForbidden',
      detail: costErrorMessage(
        'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
        total,
        staticEstimatedCRDCostLimit,
      ),
    });
  return { errors, nonStructural };
}
