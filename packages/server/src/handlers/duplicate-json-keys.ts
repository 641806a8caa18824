interface Frame {
  keys: Set<string> | undefined;
  expectKey: boolean;
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
      for (index += 1; text[index] !== '"'; index += 1) if (text[index] === '\\') index += 1;
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(start, index + 1)) as string;
        if (top.keys.has(key)) duplicates.push(key);
        top.keys.add(key);
        top.expectKey = false;
      }
    }
  }
  return duplicates;
}
