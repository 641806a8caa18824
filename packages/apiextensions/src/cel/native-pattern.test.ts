import { RE2JS } from '@bufbuild/re2';
import { describe, expect, it } from 'vitest';
import { nativePattern } from './native-pattern.js';

const subset = [
  "^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$",
  '^[a-z]+$',
  '^(a|b)*c$',
  'a{2,3}',
  'a{2,}b{0,1}',
  '^[-a-z0-9]+$',
  '^[a-z0-9-]*$',
  '[A-Z]',
  '^$',
  'x+?y',
  '^(?:[a-z0-9]([-a-z0-9]*[a-z0-9])?)$',
  'ab|cd|',
  '^/|%',
  '[$^|()*+?]',
];
const refused = ['.', 'a.b', '\\d', '\\s+', '[^a]', '(?i)a', '[[:alpha:]]', 'é', '[a-]b-c]', '[z-a]', 'a{1001}', '(a', 'a)', '*a', ']', '\\pL', 'a{,2}'];

/** Strings over an alphabet meant to meet the patterns' edges: line ends, non-ASCII, surrogates, `%`. */
function texts(): string[] {
  const alphabet = ['a', 'b', 'c', 'x', 'y', 'Z', '0', '9', '-', '/', '.', '%', '2', 'F', '\n', '\r', 'é', '😀', '\ud800', ' ', '$', '(', '|', ''];
  let state = 7;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const out = ['', 'a', 'abc', '/a/b', '%2F', 'c', 'aab', 'xy', 'x\ny', '/service-1'];
  for (let count = 0; count < 3000; count++) {
    let text = '';
    for (let length = Math.floor(next() * 8); length > 0; length--) text += alphabet[Math.floor(next() * alphabet.length)];
    out.push(text);
  }
  return out;
}

describe('native patterns', () => {
  it('match exactly as RE2 does on the patterns of the subset', () => {
    const inputs = texts();
    for (const pattern of subset) {
      const native = nativePattern(pattern);
      expect(native, pattern).toBeDefined();
      const re2 = RE2JS.compile(pattern);
      for (const text of inputs) expect(native!.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(re2.test(text));
    }
  });

  it('leave every other pattern to RE2', () => {
    for (const pattern of refused) expect(nativePattern(pattern), pattern).toBeUndefined();
  });
});
