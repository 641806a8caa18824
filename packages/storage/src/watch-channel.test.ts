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

  it('hands over queued events without waiting, in order, and iteration continues after them', async () => {
    const channel = new WatchChannel();
    expect(channel.takeBuffered()).toEqual([]);
    for (const name of ['a', 'b', 'c', 'd']) channel.push(event(name));
    const iterator = channel[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual(event('a'));
    expect(channel.takeBuffered(2)).toEqual([event('b'), event('c')]);
    expect(channel.pending).toBe(1);
    expect(channel.takeBuffered()).toEqual([event('d')]);
    expect(channel.takeBuffered()).toEqual([]);
    channel.push(event('e'));
    channel.close();
    expect((await iterator.next()).value).toEqual(event('e'));
    expect((await iterator.next()).done).toBe(true);
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
