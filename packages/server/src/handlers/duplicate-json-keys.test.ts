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

  it('gives the same answers when given the parse of the text, which spares the sets of keys', () => {
    const texts = [
      '{"a":1,"b":{"c":1,"c":2},"a":[{"d":1},{"d":2}],"b":0}',
      '{"a":{"x":1},"b":{"x":1}}',
      '{"\\u0061":1,"a":2,"s":"{\\"a\\":1,\\"a\\":2}"}',
      '{"a" : {"b":{"c":1}} , "a" : 2}',
      '{ "k" :\n "v", "l": [ {"k": "v"}, {"k":"v", "k":"w"} ], "s": "x\\":"}',
      '{"2":{"a":1},"1":{"b":1,"b":2},"__proto__":{"c":3}}',
      '{"spec":{"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/"}}]}]},"metadata":{"name":"a:b"}}',
    ];
    for (const text of texts) expect(duplicateJsonKeys(text, JSON.parse(text))).toEqual(duplicateJsonKeys(text));
    expect(duplicateJsonKeys(texts[6] as string, JSON.parse(texts[6] as string))).toEqual([]);
  });
});
