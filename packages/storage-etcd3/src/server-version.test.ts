import { describe, expect, it } from 'vitest';
import { supportsRequestProgress } from './server-version.js';

describe('supportsRequestProgress', () => {
  it.each([
    ['3.4.23', false],
    ['3.4.30', false],
    ['3.4.31', true],
    ['3.5.12', false],
    ['3.5.13', true],
    ['3.6.0', true],
    ['3.3.27', false],
    ['v3.5.17', true],
    ['garbage', false],
  ])('%s -> %s', (version, expected) => {
    expect(supportsRequestProgress(version)).toBe(expected);
  });
});
