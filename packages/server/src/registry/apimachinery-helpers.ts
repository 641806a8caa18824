import { randomInt } from 'node:crypto';
import * as apimachinery from '@kapi/apimachinery';
import { StatusError, type FieldError, type ObjectMeta, type Selector } from '@kapi/apimachinery';

/**
 * Helpers @kapi/apimachinery is to export (docs/contracts.md). They are looked up at run time so this
 * package works while they are still being written; small fallbacks cover the gap.
 */
const exported = apimachinery as unknown as Record<string, unknown>;

function lookup<T>(name: string): T | undefined {
  const value = exported[name];
  return typeof value === 'function' ? (value as T) : undefined;
}

interface Requirement {
  key: string;
  operator: 'in' | 'notin' | 'exists' | '!';
  values: string[];
}

function requirementMatches(requirement: Requirement, values: Readonly<Record<string, string>>): boolean {
  const present = Object.prototype.hasOwnProperty.call(values, requirement.key);
  const value = values[requirement.key];
  switch (requirement.operator) {
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'in':
      return present && value !== undefined && requirement.values.includes(value);
    case 'notin':
      return !present || value === undefined || !requirement.values.includes(value);
  }
}

function selectorOf(requirements: Requirement[], text: string): Selector {
  return {
    matches: (values) => requirements.every((requirement) => requirementMatches(requirement, values)),
    empty: () => requirements.length === 0,
    toString: () => text,
    requiresExactMatch: (field) => {
      const found = requirements.find((requirement) => requirement.key === field && requirement.operator === 'in');
      return found?.values.length === 1 ? found.values[0] : undefined;
    },
  };
}

/** Splits on commas outside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of text) {
    if (character === '(') depth += 1;
    if (character === ')') depth -= 1;
    if (character === ',' && depth === 0) {
      terms.push(current.trim());
      current = '';
    } else current += character;
  }
  if (current.trim() !== '' || terms.length > 0) terms.push(current.trim());
  return terms;
}

function parseFallback(text: string, allowSets: boolean, fail: (term: string) => StatusError): Selector {
  const requirements: Requirement[] = [];
  for (const term of splitTerms(text.trim())) {
    const set = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    const equality = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(term);
    if (allowSets && set?.[1] && set[2] && set[3] !== undefined) {
      const values = set[3].split(',').map((value) => value.trim()).filter(Boolean);
      requirements.push({ key: set[1], operator: set[2] === 'in' ? 'in' : 'notin', values });
    } else if (equality?.[1] && equality[2] && equality[3] !== undefined) {
      requirements.push({ key: equality[1], operator: equality[2] === '!=' ? 'notin' : 'in', values: [equality[3]] });
    } else if (allowSets && /^!?[A-Za-z0-9][-A-Za-z0-9_./]*$/.test(term)) {
      const negated = term.startsWith('!');
      requirements.push({ key: negated ? term.slice(1) : term, operator: negated ? '!' : 'exists', values: [] });
    } else throw fail(term);
  }
  return selectorOf(requirements, text);
}

/** Parses `?labelSelector=`; bad syntax is a 400. */
export function parseLabelSelector(text: string): Selector {
  const parser = lookup<(text: string) => Selector>('parseLabelSelector');
  if (parser) return parser(text);
  return parseFallback(text, true, (term) => StatusError.badRequest(`unable to parse requirement: found '${term}', expected: valid selector`));
}

/** Parses `?fieldSelector=`; bad syntax is a 400. */
export function parseFieldSelector(text: string): Selector {
  const parser = lookup<(text: string) => Selector>('parseFieldSelector');
  if (parser) return parser(text);
  return parseFallback(text, false, (term) => StatusError.badRequest(`invalid selector: '${text}'; can't understand '${term}'`));
}

/** `validateObjectMeta` from apimachinery, or a minimal name/namespace check. */
export function validateObjectMeta(meta: ObjectMeta, options: { namespaced: boolean }): FieldError[] {
  const validator = lookup<(meta: ObjectMeta, options: { namespaced: boolean }) => FieldError[]>('validateObjectMeta');
  if (validator) return validator(meta, options);
  const errors: FieldError[] = [];
  if (!meta.name && !meta.generateName) {
    errors.push({ field: 'metadata.name', type: 'FieldValueRequired', detail: 'name or generateName is required' });
  }
  if (options.namespaced && !meta.namespace) {
    errors.push({ field: 'metadata.namespace', type: 'FieldValueRequired', detail: '' });
  }
  if (!options.namespaced && meta.namespace) {
    errors.push({ field: 'metadata.namespace', type: 'FieldValueForbidden', detail: 'not allowed on this type' });
  }
  return errors;
}

const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` from apimachinery, or base + 5 random characters. */
export function generateName(base: string): string {
  const generator = lookup<(base: string) => string>('generateName');
  if (generator) return generator(base);
  const trimmed = base.length > 58 ? base.slice(0, 58) : base;
  let suffix = '';
  for (let index = 0; index < 5; index += 1) suffix += alphabet[randomInt(alphabet.length)];
  return trimmed + suffix;
}
