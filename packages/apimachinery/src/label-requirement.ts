import { StatusError } from './status-error.js';
import { isQualifiedName, isValidLabelValue } from './name-validation.js';

/** The operators of a label requirement (selection.Operator). */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement of a label selector: key, operator and its (sorted, distinct) values. */
export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** Whether the labels satisfy one requirement. */
export function requirementMatches(
  requirement: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  const value = has ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case 'in':
    case '=':
    case '==':
      return has && requirement.values.includes(value ?? '');
    case 'notin':
    case '!=':
      return !has || !requirement.values.includes(value ?? '');
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value ?? '')) return false;
      const actual = Number(value);
      const bound = Number(requirement.values[0]);
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** Requirement.String(). */
export function requirementString(requirement: LabelRequirement): string {
  const { key, operator, values } = requirement;
  switch (operator) {
    case 'exists':
      return key;
    case '!':
      return `!${key}`;
    case 'in':
    case 'notin':
      return `${key} ${operator} (${values.join(',')})`;
    case 'gt':
      return `${key}>${values[0] ?? ''}`;
    case 'lt':
      return `${key}<${values[0] ?? ''}`;
    default:
      return `${key}${operator}${values[0] ?? ''}`;
  }
}

export function quote(value: unknown): string {
  return JSON.stringify(value);
}

/** Validates a requirement as labels.NewRequirement; returns the error text or undefined. */
export function requirementError(key: string, operator: LabelOperator, values: string[]): string | undefined {
  const errors: string[] = [];
  const keyErrors = isQualifiedName(key);
  if (keyErrors.length > 0) errors.push(`key: Invalid value: ${quote(key)}: ${keyErrors.join('; ')}`);
  const rendered = `[]string{${values.map(quote).join(', ')}}`;
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errors.push(
          `values: Invalid value: ${rendered}: for 'in', 'notin' operators, values set can't be empty`,
        );
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errors.push(
          `values: Invalid value: ${rendered}: exact-match compatibility requires one single value`,
        );
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errors.push(
          `values: Invalid value: ${rendered}: values set must be empty for exists and does not exist`,
        );
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errors.push(
          `values: Invalid value: ${rendered}: for 'Gt', 'Lt' operators, exactly one value is required`,
        );
      } else if (!/^-?\d+$/.test(values[0] ?? '')) {
        errors.push(
          `values[0]: Invalid value: ${quote(values[0])}: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      }
      return errors.length > 0 ? errors.join(', ') : undefined;
  }
  values.forEach((value, index) => {
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length > 0) {
      errors.push(`values[${index}][${key}]: Invalid value: ${quote(value)}: ${valueErrors.join('; ')}`);
    }
  });
  if (errors.length === 0) return undefined;
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

/** Creates a validated requirement (labels.NewRequirement); throws StatusError.badRequest when invalid. */
export function newLabelRequirement(
  key: string,
  operator: LabelOperator,
  values: string[],
): LabelRequirement {
  const error = requirementError(key, operator, values);
  if (error !== undefined) throw StatusError.badRequest(error);
  return { key, operator, values: [...new Set(values)].sort() };
}

/** Validates a requirement and normalises its values (distinct, sorted); throws a plain Error. */
export function validatedRequirement(
  key: string,
  operator: LabelOperator,
  values: string[],
): LabelRequirement {
  const error = requirementError(key, operator, values);
  if (error !== undefined) throw new Error(error);
  return { key, operator, values: [...new Set(values)].sort() };
}
