import { describe, expect, it } from 'vitest';
import { StatusError } from './status-error.js';
import { newLabelRequirement, requirementMatches, requirementString } from './label-requirement.js';

describe('label requirements', () => {
  it('normalises values and renders upstream strings', () => {
    const requirement = newLabelRequirement('tier', 'in', ['b', 'a', 'b']);
    expect(requirement.values).toEqual(['a', 'b']);
    expect(requirementString(requirement)).toBe('tier in (a,b)');
    expect(requirementString(newLabelRequirement('a', '!', []))).toBe('!a');
    expect(requirementString(newLabelRequirement('n', 'gt', ['3']))).toBe('n>3');
  });

  it('matches numeric gt/lt only on integer labels', () => {
    const greater = newLabelRequirement('n', 'gt', ['3']);
    expect(requirementMatches(greater, { n: '4' })).toBe(true);
    expect(requirementMatches(greater, { n: '3' })).toBe(false);
    expect(requirementMatches(greater, { n: 'x' })).toBe(false);
    expect(requirementMatches(newLabelRequirement('n', 'lt', ['3']), { n: '-1' })).toBe(true);
  });

  it('throws BadRequest on invalid requirements', () => {
    const attempt = (): unknown => newLabelRequirement('a', '=', ['x', 'y']);
    expect(attempt).toThrow(
      'values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value',
    );
    try {
      attempt();
    } catch (error) {
      expect(StatusError.isInstance(error) && error.code).toBe(400);
    }
    expect(() => newLabelRequirement('n', 'gt', ['x'])).toThrow('the value must be an integer');
  });
});
