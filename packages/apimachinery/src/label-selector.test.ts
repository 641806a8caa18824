import { describe, expect, it } from 'vitest';
import { StatusError } from './status-error.js';
import { everything, labelSelectorFromObject, nothing, parseLabelSelector } from './label-selector.js';

function parseError(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (error) {
    expect(StatusError.isInstance(error)).toBe(true);
    const status = (error as StatusError).status;
    expect(status.code).toBe(400);
    expect(status.reason).toBe('BadRequest');
    return status.message ?? '';
  }
  throw new Error(`expected ${text} to fail`);
}

describe('parseLabelSelector', () => {
  it('parses every operator and prints the canonical form sorted by key', () => {
    const selector = parseLabelSelector(' z = 1 ,  y==2,x!=3, w in (b, a),v notin (c),u,!t ');
    expect(selector.toString()).toBe('!t,u,v notin (c),w in (a,b),x!=3,y==2,z=1');
    expect(selector.requirements.map((requirement) => requirement.operator)).toEqual([
      '!',
      'exists',
      'notin',
      'in',
      '!=',
      '==',
      '=',
    ]);
    expect(parseLabelSelector(selector.toString()).toString()).toBe(selector.toString());
  });

  it('matches labels', () => {
    const selector = parseLabelSelector('app=web,tier in (front,back),!legacy,env!=prod');
    expect(selector.matches({ app: 'web', tier: 'front' })).toBe(true);
    expect(selector.matches({ app: 'web', tier: 'back', env: 'dev' })).toBe(true);
    expect(selector.matches({ app: 'web', tier: 'mid' })).toBe(false);
    expect(selector.matches({ app: 'web', tier: 'front', legacy: 'true' })).toBe(false);
    expect(selector.matches({ app: 'web', tier: 'front', env: 'prod' })).toBe(false);
    expect(parseLabelSelector('a notin (x)').matches({})).toBe(true);
    expect(parseLabelSelector('a').matches({ a: '' })).toBe(true);
    expect(parseLabelSelector('a=').matches({ a: '' })).toBe(true);
  });

  it('reports the value a label must equal', () => {
    const selector = parseLabelSelector('a=1,b in (2),c in (3,4),d!=5');
    expect(['a', 'b', 'c', 'd', 'e'].map((label) => selector.requiresExactMatch(label))).toEqual([
      '1',
      '2',
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('treats in/notin as plain values inside value lists', () => {
    expect(parseLabelSelector('a in (in,notin)').matches({ a: 'notin' })).toBe(true);
    expect(parseLabelSelector('a=in').toString()).toBe('a=in');
  });

  it('is empty for the empty string', () => {
    expect(parseLabelSelector('').empty()).toBe(true);
    expect(parseLabelSelector('  ').matches({ any: 'x' })).toBe(true);
    expect(everything.empty()).toBe(true);
    expect(everything.toString()).toBe('');
  });

  it('reports syntax errors with upstream wording', () => {
    expect(parseError('a in b')).toBe("unable to parse requirement: found 'b' expected: '('");
    expect(parseError('a,')).toBe("found '', expected: identifier after ','");
    expect(parseError('a b')).toBe(
      "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
    );
    expect(parseError(',a')).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(parseError('a=b c')).toBe("found 'c', expected: ',' or 'end of string'");
    expect(parseError('a in (b c)')).toBe("unable to parse requirement: found 'c', expected: ',' or ')'");
    expect(parseError('!a=b')).toBe("found '=', expected: ',' or 'end of string'");
  });

  it('validates keys and values', () => {
    expect(parseError('-a=b')).toBe(
      "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
    expect(parseError('a=-b')).toMatch(
      /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "-b": a valid label must be an empty string or consist of/,
    );
    expect(parseError(`a=${'x'.repeat(64)}`)).toMatch(/must be no more than 63 characters/);
    expect(parseLabelSelector('example.com/a=b').matches({ 'example.com/a': 'b' })).toBe(true);
  });
});

describe('labelSelectorFromObject', () => {
  it('combines matchLabels and matchExpressions', () => {
    const selector = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(selector.toString()).toBe('app=web,env notin (prod),!legacy,owner,tier in (a,b)');
    expect(selector.matches({ app: 'web', tier: 'a', owner: 'me' })).toBe(true);
    expect(selector.matches({ app: 'web', tier: 'a' })).toBe(false);
  });

  it('matches everything when empty and nothing when absent', () => {
    expect(labelSelectorFromObject({}).matches({ a: 'b' })).toBe(true);
    expect(labelSelectorFromObject(undefined).matches({})).toBe(false);
    expect(nothing.matches({})).toBe(false);
  });

  it('rejects bad operators and values', () => {
    expect(() =>
      labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }),
    ).toThrow('"Gt" is not a valid label selector operator');
    expect(() =>
      labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
    ).toThrow("for 'in', 'notin' operators, values set can't be empty");
    expect(() =>
      labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    ).toThrow('values set must be empty for exists and does not exist');
  });
});
