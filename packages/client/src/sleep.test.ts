import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sleep } from './sleep.js';

describe('sleep', () => {
  it('leaves no listener on the signal after the timer fires', async () => {
    const abort = new AbortController();
    for (let i = 0; i < 20; i++) await sleep(1, abort.signal);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });

  it('resolves early when the signal aborts', async () => {
    const abort = new AbortController();
    const started = Date.now();
    setTimeout(() => abort.abort(), 5);
    await sleep(10_000, abort.signal);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
