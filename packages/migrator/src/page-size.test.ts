import { describe, expect, it } from 'vitest';
import { effectivePageSize } from './page-size.js';

describe('effectivePageSize', () => {
  it('keeps the page size when unthrottled', () => {
    expect(effectivePageSize(500, 0)).toBe(500);
  });

  it('lists about a quarter second of writes when throttled, at least 10 and never more than the page size', () => {
    expect(effectivePageSize(500, 40)).toBe(10);
    expect(effectivePageSize(500, 100)).toBe(25);
    expect(effectivePageSize(500, 2.5)).toBe(10);
    expect(effectivePageSize(500, 4000)).toBe(500);
    expect(effectivePageSize(5, 40)).toBe(5);
  });
});
