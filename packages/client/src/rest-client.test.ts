import { describe, expect, it } from 'vitest';
import { buildQuery } from './index.js';

describe('buildQuery', () => {
  it('encodes the defined entries as a query string', () => {
    expect(buildQuery({ limit: 500, continue: 'a b&c=d', watch: true, labelSelector: undefined })).toBe('?limit=500&continue=a+b%26c%3Dd&watch=true');
  });

  it('is empty without entries', () => {
    expect(buildQuery(undefined)).toBe('');
    expect(buildQuery({})).toBe('');
    expect(buildQuery({ limit: undefined })).toBe('');
  });
});
