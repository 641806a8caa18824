import { describe, expect, it } from 'vitest';
import { duplicateJsonKeys } from './duplicate-json-keys.js';

describe('duplicateJsonKeys', () => {
  it('finds keys repeated in one object, at any depth, in order of their second appearance', () => {
    expect(duplicateJsonKeys('{"a":1,"b":{"c":1,"c":2},"a":[{"d":1},{"d":2}],"b":0}')).toEqual(['c', 'a', 'b']);
    expect(duplicateJsonKeys('{"a":{"x":1},"b":{"x":1}}')).toEqual([]);
  });

  it('skips string values (with escaped quotes and backslashes) and decodes escaped keys', () => {
    const text = JSON.stringify({ 'k"\\': 'v \\" "a":1 \\\\', e: '\\', z: '"' }).replace('}', ',"k\\"\\\\":2}');
    expect(duplicateJsonKeys(text)).toEqual(['k"\\']);
    expect(duplicateJsonKeys('{"\\u0061":1,"a":2,"s":"{\\"a\\":1,\\"a\\":2}"}')).toEqual(['a']);
  });
});
