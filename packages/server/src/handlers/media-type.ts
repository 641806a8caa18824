/** Go's `mime` tspecials: characters that end a token. */
const T_SPECIALS = new Set('()<>@,;:\\"/[]?=');

function isTokenChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return code > 0x20 && code < 0x7f && !T_SPECIALS.has(char);
}

/** Splits `text` into its leading token and the rest (Go's `consumeToken`). */
function consumeToken(text: string): [token: string, rest: string] {
  let end = 0;
  while (end < text.length && isTokenChar(text.charAt(end))) end++;
  return [text.slice(0, end), text.slice(end)];
}

/** A token or a quoted string (Go's `consumeValue`); an unterminated quote consumes nothing. */
function consumeValue(text: string): [value: string, rest: string] {
  if (!text.startsWith('"')) return consumeToken(text);
  let value = '';
  for (let index = 1; index < text.length; index++) {
    const char = text.charAt(index);
    if (char === '"') return [value, text.slice(index + 1)];
    const next = text.charAt(index + 1);
    if (char === '\\' && next !== '' && T_SPECIALS.has(next)) {
      value += next;
      index++;
      continue;
    }
    if (char === '\r' || char === '\n') return ['', text];
    value += char;
  }
  return ['', text];
}

/** `; key=value` (Go's `consumeMediaParam`): an empty key means nothing could be consumed. */
function consumeParameter(text: string): [key: string, value: string, rest: string] {
  let rest = text.trimStart();
  if (!rest.startsWith(';')) return ['', '', text];
  const [rawKey, afterKey] = consumeToken(rest.slice(1).trimStart());
  const key = rawKey.toLowerCase();
  if (key === '') return ['', '', text];
  rest = afterKey.trimStart();
  if (!rest.startsWith('=')) return ['', '', text];
  rest = rest.slice(1).trimStart();
  const [value, afterValue] = consumeValue(rest);
  if (value === '' && afterValue === rest) return ['', '', text];
  return [key, value, afterValue];
}

/** `type` or `type/subtype`, each a token (Go's `checkMediaTypeDisposition`). */
function isMediaTypeName(name: string): boolean {
  const [type, rest] = consumeToken(name);
  if (type === '') return false;
  if (rest === '') return true;
  if (!rest.startsWith('/')) return false;
  const [subtype, end] = consumeToken(rest.slice(1));
  return subtype !== '' && end === '';
}

/**
 * Parses a Content-Type value as Go's `mime.ParseMediaType` does, returning the lower-cased media type
 * without parameters, or `undefined` when Go would fail: no type, a bad `type/subtype`, a malformed
 * parameter (`application/json;;;`, `application/json; charset`), or a parameter given twice with
 * different values. One trailing `;` is allowed, as in Go.
 */
export function parseMediaType(header: string): string | undefined {
  // Clients send the same few values on every request: each is parsed once.
  if (parsedMediaTypes.has(header)) return parsedMediaTypes.get(header);
  const type = parseMediaTypeOnce(header);
  if (parsedMediaTypes.size >= maxParsedMediaTypes) parsedMediaTypes.clear();
  parsedMediaTypes.set(header, type);
  return type;
}

/** Results of {@link parseMediaType} by header value, for at most {@link maxParsedMediaTypes} values. */
const parsedMediaTypes = new Map<string, string | undefined>();
const maxParsedMediaTypes = 64;

function parseMediaTypeOnce(header: string): string | undefined {
  const semicolon = header.indexOf(';');
  const base = semicolon === -1 ? header : header.slice(0, semicolon);
  const type = base.toLowerCase().trim();
  if (!isMediaTypeName(type)) return undefined;
  const seen = new Map<string, string>();
  let rest = header.slice(base.length);
  while (rest.length > 0) {
    rest = rest.trimStart();
    if (rest === '') break;
    const [key, value, after] = consumeParameter(rest);
    if (key === '') return after.trim() === ';' ? type : undefined;
    const previous = seen.get(key);
    if (previous !== undefined && previous !== value) return undefined;
    seen.set(key, value);
    rest = after;
  }
  return type;
}
