import { describe, expect, it } from 'vitest';
import type { Condition } from './meta-types.js';
import { findCondition, formatTime, setCondition } from './conditions.js';

const t0 = new Date('2024-01-02T03:04:05.678Z');
const t1 = new Date('2024-01-02T04:00:00.000Z');

describe('setCondition', () => {
  it('appends a new condition with the given time at second precision', () => {
    const conditions = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Starting', message: '' },
      t0,
    );
    expect(conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Starting',
        message: '',
        lastTransitionTime: '2024-01-02T03:04:05Z',
      },
    ]);
  });

  it('moves lastTransitionTime only when the status flips', () => {
    const initial = setCondition([], { type: 'Ready', status: 'False', reason: 'A', message: 'a' }, t0);
    const same = setCondition(
      initial,
      { type: 'Ready', status: 'False', reason: 'B', message: 'b', observedGeneration: 2 },
      t1,
    );
    expect(same[0]).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'B',
      message: 'b',
      observedGeneration: 2,
      lastTransitionTime: formatTime(t0),
    });
    const flipped = setCondition(same, { type: 'Ready', status: 'True', reason: 'C', message: 'c' }, t1);
    expect(flipped[0]?.lastTransitionTime).toBe(formatTime(t1));
    expect(flipped[0]?.observedGeneration).toBeUndefined();
    expect(initial[0]?.reason).toBe('A');
  });

  it('keeps other conditions and their order', () => {
    const list: Condition[] = [
      { type: 'A', status: 'True', reason: 'r', message: '', lastTransitionTime: 'x' },
      { type: 'B', status: 'True', reason: 'r', message: '', lastTransitionTime: 'y' },
    ];
    const next = setCondition(list, {
      type: 'A',
      status: 'False',
      reason: 'r',
      message: '',
      lastTransitionTime: 'z',
    });
    expect(next.map((condition) => [condition.type, condition.lastTransitionTime])).toEqual([
      ['A', 'z'],
      ['B', 'y'],
    ]);
    expect(findCondition(next, 'B')?.lastTransitionTime).toBe('y');
    expect(findCondition(next, 'C')).toBeUndefined();
    expect(findCondition(undefined, 'A')).toBeUndefined();
  });
});
