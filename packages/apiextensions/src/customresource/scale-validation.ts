import type { FieldError, KubeObject } from '@kapi/apimachinery';
import type { ResourceStrategy } from '@kapi/server';
import type { CustomResourceSubresourceScale } from '../crd/types.js';
import { valueAtPath } from './value-at-path.js';

const MAX_INT32 = 2147483647;

/** Upstream's unstructured accessor error for a value that is not of the expected type. */
function typeName(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'object') return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value;
}

/** The replicas at `path` checked as upstream's ValidateScaleSpec/Status (non-negative int32). */
function replicasErrors(object: KubeObject, path: string): FieldError[] {
  const value = valueAtPath(object, path);
  if (value === undefined || value === null) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    const detail = `${path.slice(1)} accessor error: ${JSON.stringify(value)} is of the type ${typeName(value)}, expected int64`;
    return [{ field: path, type: 'FieldValueInvalid', value: 0, detail }];
  }
  if (value < 0) return [{ field: path, type: 'FieldValueInvalid', value, detail: 'should be a non-negative integer' }];
  if (value > MAX_INT32) {
    return [{ field: path, type: 'FieldValueInvalid', value, detail: `should be less than or equal to ${MAX_INT32}` }];
  }
  return [];
}

function selectorErrors(object: KubeObject, path: string | undefined): FieldError[] {
  if (!path) return [];
  const value = valueAtPath(object, path);
  if (value === undefined || value === null || typeof value === 'string') return [];
  const detail = `${path.slice(1)} accessor error: ${JSON.stringify(value)} is of the type ${typeName(value)}, expected string`;
  return [{ field: path, type: 'FieldValueInvalid', value: '', detail }];
}

/**
 * Validation of a custom resource with a scale subresource: writes to the resource (and to `/scale`,
 * which writes through it) keep spec replicas a non-negative int32; `/status` writes do the same for
 * status replicas and keep the label selector a string.
 */
export function scaleValidation(scale: CustomResourceSubresourceScale): Pick<ResourceStrategy, 'validate' | 'validateUpdate'> {
  return {
    validate: (object) => replicasErrors(object, scale.specReplicasPath),
    validateUpdate: (object, _old, scope) =>
      scope.subresource === 'status'
        ? [...replicasErrors(object, scale.statusReplicasPath), ...selectorErrors(object, scale.labelSelectorPath)]
        : replicasErrors(object, scale.specReplicasPath),
  };
}
