/** The value at a simple JSONPath (`.spec.a.b`, `.spec.list[0]`). */
export function valueAtPath(object: unknown, jsonPath: string): unknown {
  let current: unknown = object;
  for (const part of jsonPath.match(/\.[^.[]+|\[\d+\]|\['[^']+'\]/g) ?? []) {
    if (current === null || typeof current !== 'object') return undefined;
    const key = part.startsWith('.') ? part.slice(1) : part.startsWith("['") ? part.slice(2, -2) : Number(part.slice(1, -1));
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}
