import type { FieldError, KubeObject } from '@kapi/apimachinery';

const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  field,
  type: 'FieldValueInvalid',
  value,
  detail,
});

/**
 * sample-apiserver's `ValidateFlunder` on the hub (v1beta1) shape: the reference fields must agree with
 * `referenceType`, which must be Flunder or Fischer.
 */
export function validateFlunder(object: KubeObject): FieldError[] {
  const spec = (object['spec'] ?? {}) as Record<string, unknown>;
  const flunder = typeof spec['flunderReference'] === 'string' ? spec['flunderReference'] : '';
  const fischer = typeof spec['fischerReference'] === 'string' ? spec['fischerReference'] : '';
  const type = typeof spec['referenceType'] === 'string' ? spec['referenceType'] : '';
  const errors: FieldError[] = [];
  if (flunder !== '' && fischer !== '') {
    errors.push(invalid('spec.fischerReference', fischer, 'cannot be set with flunderReference at the same time'));
  } else if (flunder !== '' && type !== 'Flunder') {
    errors.push(invalid('spec.flunderReference', flunder, 'cannot be set if referenceType is not Flunder'));
  } else if (fischer !== '' && type !== 'Fischer') {
    errors.push(invalid('spec.fischerReference', fischer, 'cannot be set if referenceType is not Fischer'));
  } else if (fischer === '' && type === 'Fischer') {
    errors.push({ field: 'spec.fischerReference', type: 'FieldValueRequired', detail: 'cannot be empty if referenceType is Fischer' });
  } else if (flunder === '' && type === 'Flunder') {
    errors.push({ field: 'spec.flunderReference', type: 'FieldValueRequired', detail: 'cannot be empty if referenceType is Flunder' });
  }
  if (type !== '' && type !== 'Flunder' && type !== 'Fischer') {
    errors.push(invalid('spec.referenceType', type, 'must be Flunder or Fischer'));
  }
  return errors;
}
