import { describe, expect, it } from 'vitest';
import { parseMediaType } from './media-type.js';

describe('parseMediaType (Go mime.ParseMediaType)', () => {
  it.each([
    ['application/json', 'application/json'],
    ['Application/JSON', 'application/json'],
    ['application/json;', 'application/json'],
    ['application/json ; charset=utf-8', 'application/json'],
    ['application/json; charset="utf\\"8"', 'application/json'],
    ['application/json; a=1; a=1', 'application/json'],
    ['json', 'json'],
  ])('%j -> %j', (header, type) => {
    expect(parseMediaType(header)).toBe(type);
  });

  it.each([
    'application/json;;;',
    'application/json;;',
    'application/json; charset',
    'application/json; charset=',
    'application/json; =utf-8',
    'application/json; a=1; a=2',
    'application/json; a="open',
    'application/',
    '/json',
    'application/json/x',
    'a b/json',
    '',
  ])('%j is malformed', (header) => {
    expect(parseMediaType(header)).toBeUndefined();
  });
});

describe('parseMediaType, remembered by header value', () => {
  it('answers the same for a value seen before, also after more values than it remembers', () => {
    const values = Array.from({ length: 200 }, (_, index) => [`application/x-${index}; v=${index}`, index % 2 === 0 ? `application/x-${index}; v=1; v=2` : `Application/X-${index}`]);
    for (let round = 0; round < 2; round += 1) {
      for (const [good, other] of values) {
        expect(parseMediaType(good!)).toBe(good!.split(';')[0]);
        expect(parseMediaType(other!)).toBe(other!.includes('v=2') ? undefined : other!.toLowerCase());
      }
    }
  });
});
