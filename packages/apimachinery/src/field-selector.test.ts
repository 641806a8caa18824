import { describe, expect, it } from 'vitest';
import { StatusError } from './status-error.js';
import { escapeFieldValue, parseFieldSelector, unescapeFieldValue } from './field-selector.js';

function parseError(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (error) {
    expect(StatusError.isInstance(error)).toBe(true);
    expect((error as StatusError).code).toBe(400);
    return (error as StatusError).message;
  }
  throw new Error(`expected ${text} to fail`);
}

describe('parseFieldSelector', () => {
  it('parses =, == and != terms, sorted, in canonical form', () => {
    const selector = parseFieldSelector(
      'metadata.namespace!=kube-system,metadata.name==web,status.phase=Running',
    );
    expect(selector.toString()).toBe(
      'metadata.name=web,metadata.namespace!=kube-system,status.phase=Running',
    );
    expect(
      selector.matches({
        'metadata.name': 'web',
        'metadata.namespace': 'default',
        'status.phase': 'Running',
      }),
    ).toBe(true);
    expect(
      selector.matches({
        'metadata.name': 'web',
        'metadata.namespace': 'kube-system',
        'status.phase': 'Running',
      }),
    ).toBe(false);
    expect(selector.requiresExactMatch('metadata.name')).toBe('web');
    expect(selector.requiresExactMatch('metadata.namespace')).toBeUndefined();
  });

  it('handles escapes', () => {
    const selector = parseFieldSelector('a=x\\,y\\=z\\\\,b=2');
    expect(selector.requirements).toEqual([
      { field: 'a', operator: '=', value: 'x,y=z\\' },
      { field: 'b', operator: '=', value: '2' },
    ]);
    expect(selector.toString()).toBe('a=x\\,y\\=z\\\\,b=2');
    expect(unescapeFieldValue(escapeFieldValue('a,b=c\\d'))).toBe('a,b=c\\d');
  });

  it('treats a missing field as the empty string', () => {
    expect(parseFieldSelector('spec.nodeName=').matches({})).toBe(true);
    expect(parseFieldSelector('spec.nodeName!=').matches({ 'spec.nodeName': 'n1' })).toBe(true);
  });

  it('is empty for the empty string', () => {
    expect(parseFieldSelector('').empty()).toBe(true);
    expect(parseFieldSelector('').toString()).toBe('');
  });

  it('reports errors with upstream wording', () => {
    expect(parseError('abc')).toBe("invalid selector: 'abc'; can't understand 'abc'");
    expect(parseError('a=b=c')).toBe('invalid field selector: unescaped character in value: =');
    expect(parseError('a=b\\x')).toBe('invalid field selector: invalid escape sequence: \\x');
    expect(parseError('a=b\\')).toBe('invalid field selector: invalid escape sequence: \\');
  });
});
