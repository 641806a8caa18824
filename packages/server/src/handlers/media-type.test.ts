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
