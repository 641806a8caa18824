import type { FieldError } from '@kapi/apimachinery';
import type { ValidationRule } from '../schema/json-schema-props.js';

/** The `reason`s a rule may give (the field error type its failure is reported as). */
export const ruleReasons: readonly string[] = [
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
];

/** CRD-time checks of one `x-kubernetes-validations` entry besides compiling it (`path` is the entry's path). */
export function ruleShapeErrors(rule: ValidationRule, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (rule.rule.trim() === '')
    errors.push({ field: `${path}.rule`, type: 'FieldValueRequired', detail: 'rule is not specified' });
  if (rule.message !== undefined && rule.message.length > 0 && rule.message.trim() === '')
    errors.push({
      field: `${path}.message`,
      type: 'FieldValueInvalid',
      value: rule.message,
      detail: 'message must be non-empty if specified',
    });
  if (rule.message !== undefined && /\n/.test(rule.message))
    errors.push({
      field: `${path}.message`,
      type: 'FieldValueInvalid',
      value: rule.message,
      detail: 'message must not contain line breaks',
    });
  if (/\n/.test(rule.rule) && (rule.message === undefined || rule.message === ''))
    errors.push({
      field: `${path}.message`,
      type: 'FieldValueRequired',
      detail: 'message must be specified if rule contains line breaks',
    });
  if (
    rule.messageExpression !== undefined &&
    rule.messageExpression.length > 0 &&
    rule.messageExpression.trim() === ''
  )
    errors.push({
      field: `${path}.messageExpression`,
      type: 'FieldValueRequired',
      detail: 'messageExpression must be non-empty if specified',
    });
  if (rule.reason !== undefined && !ruleReasons.includes(rule.reason))
    errors.push({
      field: `${path}.reason`,
      type: 'FieldValueNotSupported',
      value: rule.reason,
      detail: `supported values: ${ruleReasons.map((reason) => JSON.stringify(reason)).join(', ')}`,
    });
  return errors;
}
