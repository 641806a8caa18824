import { describe, expect, it } from 'vitest';
import { humanDuration } from './human-duration.js';

describe('humanDuration', () => {
  it('matches upstream HumanDuration', () => {
    const second = 1000;
    const minute = 60 * second;
    const hour = 60 * minute;
    const day = 24 * hour;
    const cases: Array<[number, string]> = [
      [-2 * second, '<invalid>'],
      [-1 * second, '0s'],
      [0, '0s'],
      [119 * second, '119s'],
      [2 * minute, '2m'],
      [3 * minute + 20 * second, '3m20s'],
      [10 * minute, '10m'],
      [179 * minute, '179m'],
      [3 * hour, '3h'],
      [7 * hour + 30 * minute, '7h30m'],
      [47 * hour, '47h'],
      [2 * day + 3 * hour, '2d3h'],
      [8 * day, '8d'],
      [2 * 365 * day + 30 * day, '2y30d'],
      [9 * 365 * day, '9y'],
    ];
    for (const [input, expected] of cases) expect(humanDuration(input)).toBe(expected);
  });
});
