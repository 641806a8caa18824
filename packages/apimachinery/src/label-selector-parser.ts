import { isQualifiedName } from './name-validation.js';
import {
  quote,
  validatedRequirement,
  type LabelOperator,
  type LabelRequirement,
} from './label-requirement.js';

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

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

/** labels.Parser: a recursive-descent parser over the lexed tokens. */
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
    if (operator === '!') return validatedRequirement(key, '!', []);
    if (next === 'end' || next === ',') return validatedRequirement(key, 'exists', []);
    const operatorToken = this.consume(false);
    switch (operatorToken.kind) {
      case 'in':
      case 'notin':
        return validatedRequirement(key, operatorToken.kind, this.parseValues());
      case '=':
      case '==':
      case '!=':
        return validatedRequirement(key, operatorToken.kind, this.parseExactValue());
      case '>':
        return validatedRequirement(key, 'gt', this.parseExactValue());
      case '<':
        return validatedRequirement(key, 'lt', this.parseExactValue());
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

/** Parses selector text into requirements (unsorted); throws plain Errors with upstream's wording. */
export function parseLabelRequirements(text: string): LabelRequirement[] {
  return new LabelSelectorParser(lex(text)).parse();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
