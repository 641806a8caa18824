import type { Selector } from './selector.js';
import { StatusError } from './status-error.js';

/** One term of a field selector: `field=value` or `field!=value`. */
export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/** A parsed field selector: a Selector whose terms can be inspected. */
export interface FieldSelector extends Selector {
  readonly requirements: readonly FieldRequirement[];
  requiresExactMatch(field: string): string | undefined;
}

/** Escapes `\`, `,` and `=` in a field selector value (fields.EscapeValue). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (character) => `\\${character}`);
}

/** Reverses {@link escapeFieldValue}; throws on unknown escapes and unescaped `,`/`=` (fields.UnescapeValue). */
export function unescapeFieldValue(text: string): string {
  if (!/[\\,=]/.test(text)) return text;
  let out = '';
  let inSlash = false;
  for (const character of text) {
    if (inSlash) {
      if (character !== '\\' && character !== ',' && character !== '=') {
        throw new Error(`invalid field selector: invalid escape sequence: \\${character}`);
      }
      out += character;
      inSlash = false;
    } else if (character === '\\') {
      inSlash = true;
    } else if (character === ',' || character === '=') {
      throw new Error(`invalid field selector: unescaped character in value: ${character}`);
    } else {
      out += character;
    }
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on unescaped commas, keeping escapes in the terms. */
function splitTerms(text: string): string[] {
  if (text.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (inSlash) inSlash = false;
    else if (character === '\\') inSlash = true;
    else if (character === ',') {
      terms.push(text.slice(start, index));
      start = index + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

const termOperators = ['!=', '==', '='] as const;

function splitTerm(
  term: string,
): { field: string; operator: (typeof termOperators)[number]; value: string } | undefined {
  for (let index = 0; index < term.length; index++) {
    for (const operator of termOperators) {
      if (term.startsWith(operator, index)) {
        return { field: term.slice(0, index), operator, value: term.slice(index + operator.length) };
      }
    }
  }
  return undefined;
}

function termString(requirement: FieldRequirement): string {
  return `${requirement.field}${requirement.operator}${escapeFieldValue(requirement.value)}`;
}

/** Builds a field selector over terms (kept in the given order). */
export function fieldSelectorOf(requirements: FieldRequirement[]): FieldSelector {
  const terms = [...requirements];
  const text = terms.map(termString).join(',');
  return {
    requirements: terms,
    matches: (fields) =>
      terms.every((term) => {
        const actual = fields[term.field] ?? '';
        return term.operator === '=' ? actual === term.value : actual !== term.value;
      }),
    empty: () => terms.length === 0,
    toString: () => text,
    requiresExactMatch: (field) => terms.find((term) => term.operator === '=' && term.field === field)?.value,
  };
}

/**
 * Parses a field selector (`?fieldSelector=`) as fields.ParseSelector: `a=b`, `a==b`, `a!=b`, comma-separated,
 * `\`-escapes for `\`, `,` and `=` in values. Throws StatusError.badRequest with upstream's wording.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort();
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (term === undefined)
      throw StatusError.badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    let value: string;
    try {
      value = unescapeFieldValue(term.value);
    } catch (error) {
      throw StatusError.badRequest(error instanceof Error ? error.message : String(error));
    }
    requirements.push({ field: term.field, operator: term.operator === '!=' ? '!=' : '=', value });
  }
  return fieldSelectorOf(requirements);
}
