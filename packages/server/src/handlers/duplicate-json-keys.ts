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

/**
 * The keys that appear more than once in one JSON object of `text` (already valid JSON), in order of
 * their second appearance: what sigs.k8s.io/json reports as `duplicate field "<key>"` in strict decoding.
 */
export function duplicateJsonKeys(text: string): string[] {
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
