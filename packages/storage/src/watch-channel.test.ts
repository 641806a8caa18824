import { describe, expect, it } from 'vitest';
import { WatchChannel } from './watch-channel.js';
import type { StorageWatchEvent } from './interfaces.js';

const event = (name: string): StorageWatchEvent => ({ type: 'ADDED', object: { metadata: { name } } });

describe('WatchChannel', () => {
  it('delivers pushed events in order and ends after close', async () => {
    const channel = new WatchChannel();
    channel.push(event('a'));
    setTimeout(() => {
      channel.push(event('b'));
      channel.close();
    }, 5);
    const names: string[] = [];
    for await (const e of channel) names.push((e.object as { metadata: { name: string } }).metadata.name);
    expect(names).toEqual(['a', 'b']);
  });

  it('closes itself instead of blocking when the consumer falls behind', async () => {
    let stops = 0;
    const channel = new WatchChannel({ capacity: 2, onStop: () => stops++ });
    expect(channel.push(event('a'))).toBe(true);
    expect(channel.push(event('b'))).toBe(true);
    expect(channel.push(event('c'))).toBe(false);
    expect(channel.overflowed).toBe(true);
    expect(stops).toBe(1);
    await channel.done;
  });

  it('stops when its signal aborts', async () => {
    const abort = new AbortController();
    const channel = new WatchChannel({ signal: abort.signal });
    abort.abort();
    await channel.done;
    expect(channel.closed).toBe(true);
  });
});
