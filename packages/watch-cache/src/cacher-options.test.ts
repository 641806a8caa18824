import { describe, expect, it } from 'vitest';
import type { Interface } from '@kapi/storage';
import { goDuration, resolveCacherOptions } from './cacher-options.js';

const storage = {} as Interface;

describe('resolveCacherOptions', () => {
  it('rejects a history window below 75 s with the upstream message', () => {
    expect(() => resolveCacherOptions({ storage, resourcePrefix: '/r', eventsHistoryWindowMs: 60_000 })).toThrowError(
      'config.EventsHistoryWindow (1m0s) must not be below 1m15s',
    );
  });

  it('scales the default maximum history with longer windows', () => {
    expect(resolveCacherOptions({ storage, resourcePrefix: '/r/' })).toMatchObject({
      resourcePrefix: '/r',
      eventsHistoryWindowMs: 75_000,
      minHistory: 100,
      maxHistory: 102_400,
    });
    expect(resolveCacherOptions({ storage, resourcePrefix: '/r', eventsHistoryWindowMs: 200_000 }).maxHistory).toBe(409_600);
    expect(resolveCacherOptions({ storage, resourcePrefix: '/r', eventsHistoryWindowMs: 200_000, maxHistory: 500 }).maxHistory).toBe(500);
  });

  it('formats durations like Go', () => {
    expect(goDuration(75_000)).toBe('1m15s');
    expect(goDuration(500)).toBe('500ms');
    expect(goDuration(3_600_000)).toBe('1h0m0s');
    expect(goDuration(1_500)).toBe('1.5s');
  });
});
