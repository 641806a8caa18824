import { describe, expect, it } from 'vitest';
import { GENERATE_NAME_ALPHABET, generateName } from './generate-name.js';

describe('generateName', () => {
  it('appends 5 characters from the upstream alphabet', () => {
    const name = generateName('web-');
    expect(name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
  it('uses the injected random source', () => {
    expect(generateName('x-', () => 0)).toBe('x-bbbbb');
    expect(generateName('x-', (size) => size - 1)).toBe(`x-${GENERATE_NAME_ALPHABET.at(-1)!.repeat(5)}`);
  });
  it('truncates long bases to keep 63 characters', () => {
    const name = generateName('a'.repeat(80));
    expect(name).toHaveLength(63);
    expect(name.startsWith('a'.repeat(58))).toBe(true);
  });
});
