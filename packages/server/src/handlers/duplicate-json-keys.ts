interface Frame {
  keys: Set<string> | undefined;
  expectKey: boolean;
}

/** The index of the `"` that closes the JSON string opening at `start` (found with indexOf, not per character). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** How many object keys `text` (valid JSON) holds: strings followed by a colon. Allocates nothing. */
function textKeyCount(text: string): number {
  let count = 0;
  for (let index = text.indexOf('"'); index !== -1; index = text.indexOf('"', index + 1)) {
    index = stringEnd(text, index);
    let next = index + 1;
    let code = text.charCodeAt(next);
    // JSON whitespace: space, tab, line feed, carriage return.
    while (code === 32 || code === 9 || code === 10 || code === 13) code = text.charCodeAt(++next);
    if (code === 58) count += 1;
  }
  return count;
}

/** How many keys the objects of a parsed JSON value hold, nested ones included. */
function parsedKeyCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += parsedKeyCount(item);
    return count;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) count += 1 + parsedKeyCount(record[key]);
  return count;
}

/**
 * The keys that appear more than once in one JSON object of `text` (already valid JSON), in order of
 * their second appearance: what sigs.k8s.io/json reports as `duplicate field "<key>"` in strict decoding.
 * With `parsed` (JSON.parse of `text`, not yet changed), a body without duplicates is recognised without
 * building a set of keys per object: JSON.parse keeps one key of each duplicate (and drops the earlier
 * value, with its nested keys), so the parse holds exactly as many keys as the text only when no object
 * repeats one.
 */
export function duplicateJsonKeys(text: string, parsed?: unknown): string[] {
  if (parsed !== undefined && textKeyCount(text) === parsedKeyCount(parsed)) return [];
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    const top = stack[stack.length - 1];
    if (character === '{') stack.push({ keys: new Set(), expectKey: true });
    else if (character === '[') stack.push({ keys: undefined, expectKey: false });
    else if (character === '}' || character === ']') stack.pop();
    else if (character === ',' && top?.keys) top.expectKey = true;
    else if (character === '"') {
      const start = index;
      index = stringEnd(text, index);
      if (top?.keys && top.expectKey) {
        const raw = text.slice(start + 1, index);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys.has(key)) duplicates.push(key);
        top.keys.add(key);
        top.expectKey = false;
      }
    }
  }
  return duplicates;
}
