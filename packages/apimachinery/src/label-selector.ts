import type { Selector } from './selector.js';
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

/** A parsed label selector: a Selector whose requirements can be inspected. */
export interface LabelSelector extends Selector {
  readonly requirements: readonly LabelRequirement[];
  /** The single value `label` must equal (`=`, `==` or a one-value `in`), if the selector pins one. */
  requiresExactMatch(label: string): string | undefined;
}

/** metav1.LabelSelector as it appears in objects (`spec.selector`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

function requirementMatches(
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

/** Builds a selector over requirements (sorted by key, as upstream). */
export function labelSelectorOf(requirements: LabelRequirement[]): LabelSelector {
  const sorted = [...requirements].sort((left, right) =>
    left.key < right.key ? -1 : left.key > right.key ? 1 : 0,
  );
  const text = sorted.map(requirementString).join(',');
  return {
    requirements: sorted,
    matches: (labels) => sorted.every((requirement) => requirementMatches(requirement, labels)),
    empty: () => sorted.length === 0,
    toString: () => text,
    requiresExactMatch: (label) => {
      for (const requirement of sorted) {
        if (requirement.key !== label) continue;
        const { operator, values } = requirement;
        const pins = operator === '=' || operator === '==' || operator === 'in';
        if (pins && values.length === 1) return values[0];
      }
      return undefined;
    },
  };
}

/** The selector that matches every object. */
export const everything: LabelSelector = labelSelectorOf([]);

/** The selector that matches no object (a nil metav1.LabelSelector). */
export const nothing: Selector = {
  matches: () => false,
  empty: () => false,
  toString: () => '',
};

function quote(value: unknown): string {
  return JSON.stringify(value);
}

/** Validates a requirement as labels.NewRequirement; returns the error text or undefined. */
function requirementError(key: string, operator: LabelOperator, values: string[]): string | undefined {
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

// ---- lexer ----

type TokenKind =
  'identifier' | 'end' | 'error' | 'in' | 'notin' | '!' | '!=' | '=' | '==' | '(' | ')' | ',' | '>' | '<';

interface Token {
  kind: TokenKind;
  literal: string;
}

const specialSymbols = new Set(['=', '!', '(', ')', ',', '>', '<']);
const symbolTokens = new Set(['!', '!=', '(', ')', ',', '=', '==', '>', '<']);
const isWhitespace = (character: string): boolean =>
  character === ' ' || character === '\t' || character === '\r' || character === '\n';

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  for (;;) {
    while (position < text.length && isWhitespace(text[position] ?? '')) position++;
    if (position >= text.length) {
      tokens.push({ kind: 'end', literal: '' });
      return tokens;
    }
    const character = text[position] ?? '';
    if (specialSymbols.has(character)) {
      let literal = '';
      let best = '';
      while (
        position + literal.length < text.length &&
        specialSymbols.has(text[position + literal.length] ?? '')
      ) {
        literal += text[position + literal.length];
        if (symbolTokens.has(literal)) best = literal;
        else break;
      }
      if (best === '') {
        tokens.push({ kind: 'error', literal: `error expected: keyword found '${literal}'` });
        tokens.push({ kind: 'end', literal: '' });
        return tokens;
      }
      position += best.length;
      tokens.push({ kind: best as TokenKind, literal: best });
      continue;
    }
    let end = position;
    while (end < text.length && !isWhitespace(text[end] ?? '') && !specialSymbols.has(text[end] ?? '')) end++;
    const literal = text.slice(position, end);
    position = end;
    tokens.push({ kind: literal === 'in' || literal === 'notin' ? literal : 'identifier', literal });
  }
}

// ---- parser ----

class LabelSelectorParser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  /** In value context `in`/`notin` are plain identifiers. */
  private lookahead(values: boolean): Token {
    const token = this.tokens[this.position] ?? { kind: 'end', literal: '' };
    if (values && (token.kind === 'in' || token.kind === 'notin'))
      return { kind: 'identifier', literal: token.literal };
    return token;
  }

  private consume(values: boolean): Token {
    const token = this.lookahead(values);
    if (this.position < this.tokens.length - 1) this.position++;
    return token;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const token = this.lookahead(true);
      if (token.kind === 'identifier' || token.kind === '!') {
        try {
          requirements.push(this.parseRequirement());
        } catch (error) {
          throw new Error(`unable to parse requirement: ${describe(error)}`);
        }
        const next = this.consume(true);
        if (next.kind === 'end') return requirements;
        if (next.kind !== ',') throw new Error(`found '${next.literal}', expected: ',' or 'end of string'`);
        const after = this.lookahead(true);
        if (after.kind !== 'identifier' && after.kind !== '!') {
          throw new Error(`found '${after.literal}', expected: identifier after ','`);
        }
      } else if (token.kind === 'end') {
        return requirements;
      } else {
        throw new Error(`found '${token.literal}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let token = this.consume(true);
    let operator: LabelOperator | undefined;
    if (token.kind === '!') {
      operator = '!';
      token = this.consume(true);
    }
    if (token.kind !== 'identifier') throw new Error(`found '${token.literal}', expected: identifier`);
    const key = token.literal;
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0) throw new Error(`<nil>: Invalid value: ${quote(key)}: ${keyErrors.join('; ')}`);
    const next = this.lookahead(true).kind;
    if (operator === '!') return checked(key, '!', []);
    if (next === 'end' || next === ',') return checked(key, 'exists', []);
    const operatorToken = this.consume(false);
    switch (operatorToken.kind) {
      case 'in':
      case 'notin':
        return checked(key, operatorToken.kind, this.parseValues());
      case '=':
      case '==':
      case '!=':
        return checked(key, operatorToken.kind, this.parseExactValue());
      case '>':
        return checked(key, 'gt', this.parseExactValue());
      case '<':
        return checked(key, 'lt', this.parseExactValue());
      default:
        throw new Error(`found '${operatorToken.literal}', expected: ${binaryOperators}`);
    }
  }

  private parseValues(): string[] {
    const open = this.consume(true);
    if (open.kind !== '(') throw new Error(`found '${open.literal}' expected: '('`);
    const next = this.lookahead(true);
    if (next.kind === ')') {
      this.consume(true);
      return [''];
    }
    if (next.kind !== 'identifier' && next.kind !== ',') {
      throw new Error(`found '${next.literal}', expected: ',', ')' or identifier`);
    }
    const values = this.parseIdentifierList();
    const close = this.consume(true);
    if (close.kind !== ')') throw new Error(`found '${next.literal}', expected: ')'`);
    return values;
  }

  private parseIdentifierList(): string[] {
    const values = new Set<string>();
    for (;;) {
      const token = this.consume(true);
      if (token.kind === 'identifier') {
        values.add(token.literal);
        const next = this.lookahead(true);
        if (next.kind === ',') continue;
        if (next.kind === ')') return [...values];
        throw new Error(`found '${next.literal}', expected: ',' or ')'`);
      } else if (token.kind === ',') {
        if (values.size === 0) values.add('');
        const next = this.lookahead(true);
        if (next.kind === ')') {
          values.add('');
          return [...values];
        }
        if (next.kind === ',') {
          this.consume(true);
          values.add('');
        }
      } else {
        throw new Error(`found '${token.literal}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): string[] {
    const next = this.lookahead(true);
    if (next.kind === 'end' || next.kind === ',') return [''];
    const token = this.consume(true);
    if (token.kind === 'identifier') return [token.literal];
    throw new Error(`found '${token.literal}', expected: identifier`);
  }
}

function checked(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const error = requirementError(key, operator, values);
  if (error !== undefined) throw new Error(error);
  return { key, operator, values: [...new Set(values)].sort() };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Parses a label selector (`?labelSelector=`) as labels.Parse: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a`, `!a`, comma-separated. Throws StatusError.badRequest with upstream's wording.
 */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return labelSelectorOf(new LabelSelectorParser(lex(text)).parse());
  } catch (error) {
    if (StatusError.isInstance(error)) throw error;
    throw StatusError.badRequest(describe(error));
  }
}

/**
 * metav1.LabelSelectorAsSelector: matchLabels as equality requirements, matchExpressions with In, NotIn,
 * Exists, DoesNotExist. An undefined selector matches nothing; an empty one matches everything.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | undefined | null): Selector {
  if (selector === undefined || selector === null) return nothing;
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    requirements.push(newLabelRequirement(key, '=', [value]));
  }
  const operators: Record<string, LabelOperator> = {
    In: 'in',
    NotIn: 'notin',
    Exists: 'exists',
    DoesNotExist: '!',
  };
  for (const expression of selector.matchExpressions ?? []) {
    const operator = operators[expression.operator];
    if (operator === undefined) {
      throw StatusError.badRequest(`${quote(expression.operator)} is not a valid label selector operator`);
    }
    requirements.push(newLabelRequirement(expression.key, operator, [...(expression.values ?? [])]));
  }
  return labelSelectorOf(requirements);
}
