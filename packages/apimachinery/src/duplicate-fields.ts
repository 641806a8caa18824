/**
 * Duplicate JSON object keys, which `JSON.parse` silently collapses (last one wins). Used for
 * `fieldValidation=Strict|Warn` (`strict decoding error: duplicate field "spec.replicas"`).
 */

function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/**
 * Returns the dotted paths (`spec.replicas`, `spec.containers[0].name`) of keys that appear more than once in
 * the same object of a JSON text. The text must be valid JSON (parse it first).
 */
export function findDuplicateFields(text: string): string[] {
  const found: string[] = [];
  let position = 0;

  const skipWhitespace = (): void => {
    while (position < text.length && ' \t\r\n'.includes(text[position] ?? '')) position++;
  };

  const readString = (): string => {
    const start = position;
    position++;
    while (position < text.length && text[position] !== '"') position += text[position] === '\\' ? 2 : 1;
    position++;
    return JSON.parse(text.slice(start, position)) as string;
  };

  const readValue = (path: string): void => {
    skipWhitespace();
    const character = text[position];
    if (character === '{') readObject(path);
    else if (character === '[') readArray(path);
    else if (character === '"') readString();
    else while (position < text.length && !',]} \t\r\n'.includes(text[position] ?? '')) position++;
  };

  const readObject = (path: string): void => {
    position++;
    const seen = new Set<string>();
    skipWhitespace();
    if (text[position] === '}') {
      position++;
      return;
    }
    while (position < text.length) {
      skipWhitespace();
      const key = readString();
      skipWhitespace();
      position++; // ':'
      const keyPath = childPath(path, key);
      if (seen.has(key)) found.push(keyPath);
      seen.add(key);
      readValue(keyPath);
      skipWhitespace();
      if (text[position++] !== ',') return;
    }
  };

  const readArray = (path: string): void => {
    position++;
    skipWhitespace();
    if (text[position] === ']') {
      position++;
      return;
    }
    for (let index = 0; position < text.length; index++) {
      readValue(`${path}[${index}]`);
      skipWhitespace();
      if (text[position++] !== ',') return;
    }
  };

  readValue('');
  return found;
}
