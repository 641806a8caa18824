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

describe('WatchChannel.deliver (push mode)', () => {
  const nameOf = (e: StorageWatchEvent) => (e.object as { metadata: { name: string } }).metadata.name;

  it('hands queued events over first, then live ones synchronously as they are pushed', async () => {
    const channel = new WatchChannel();
    channel.push(event('a'));
    channel.push(event('b'));
    const received: string[] = [];
    const delivery = channel.deliver((e) => (received.push(nameOf(e)), true));
    expect(received).toEqual(['a', 'b']);
    expect(channel.receiving).toBe(true);
    channel.push(event('c'));
    expect(received).toEqual(['a', 'b', 'c']);
    expect(channel.pending).toBe(0);
    channel.close();
    expect(await delivery).toBe(false);
    expect(channel.receiving).toBe(false);
  });

  it('pauses when the receiver returns false, queues what follows and resumes in order', async () => {
    const channel = new WatchChannel();
    const received: string[] = [];
    let accept = true;
    const receive = (e: StorageWatchEvent) => (received.push(nameOf(e)), accept);
    const first = channel.deliver(receive);
    accept = false;
    channel.push(event('a'));
    expect(await first).toBe(true);
    expect(channel.receiving).toBe(false);
    channel.push(event('b'));
    channel.push(event('c'));
    expect(received).toEqual(['a']);
    expect(channel.pending).toBe(2);
    accept = true;
    const second = channel.deliver(receive);
    channel.push(event('d'));
    expect(received).toEqual(['a', 'b', 'c', 'd']);
    channel.stop();
    expect(await second).toBe(false);
  });

  it('hands over at most max queued events per call and does not attach while events are left or the receiver paused', async () => {
    const channel = new WatchChannel();
    for (const name of ['a', 'b', 'c']) channel.push(event(name));
    const received: string[] = [];
    expect(await channel.deliver((e) => (received.push(nameOf(e)), true), 2)).toBe(true);
    expect(received).toEqual(['a', 'b']);
    expect(channel.receiving).toBe(false);
    // A batch is handed over whole even when the receiver asks to pause (it writes it as one flush).
    channel.push(event('d'));
    expect(await channel.deliver((e) => (received.push(nameOf(e)), false))).toBe(true);
    expect(received).toEqual(['a', 'b', 'c', 'd']);
    expect(channel.receiving).toBe(false);
  });

  it('ends after the queued events when the producer closed, and at once when stopped', async () => {
    const closed = new WatchChannel();
    closed.push(event('a'));
    closed.close();
    const received: string[] = [];
    expect(await closed.deliver((e) => (received.push(nameOf(e)), true))).toBe(false);
    expect(received).toEqual(['a']);
    const stopped = new WatchChannel();
    stopped.push(event('b'));
    stopped.stop();
    expect(await stopped.deliver(() => true)).toBe(false);
  });

  it('closes a paused consumer that falls behind instead of blocking the producer', async () => {
    const channel = new WatchChannel({ capacity: 2 });
    const delivery = channel.deliver(() => false);
    expect(channel.push(event('a'))).toBe(true);
    expect(await delivery).toBe(true);
    expect(channel.push(event('b'))).toBe(true);
    expect(channel.push(event('c'))).toBe(true);
    expect(channel.push(event('d'))).toBe(false);
    expect(channel.overflowed).toBe(true);
    await channel.done;
  });

  it('stops the channel and rejects the delivery when the receiver throws, without throwing at the producer', async () => {
    const channel = new WatchChannel();
    const delivery = channel.deliver(() => {
      throw new Error('socket gone');
    });
    expect(channel.push(event('a'))).toBe(false);
    await expect(delivery).rejects.toThrow('socket gone');
    expect(channel.closed).toBe(true);
  });

  it('refuses a second receiver while one is attached', () => {
    const channel = new WatchChannel();
    void channel.deliver(() => true);
    expect(() => channel.deliver(() => true)).toThrow(/already attached|while a delivery/);
  });
});

describe('WatchChannel.deliverTo (push mode with a consumer object)', () => {
  const nameOf = (e: StorageWatchEvent) => (e.object as { metadata: { name: string } }).metadata.name;

  /** A consumer recording what it receives and how each attached delivery ended. */
  function recorder(accept: () => boolean = () => true) {
    const log: string[] = [];
    const consumer = {
      receive: (e: StorageWatchEvent) => (log.push(nameOf(e)), accept()),
      delivered: (more: boolean) => log.push(`delivered(${more})`),
      deliveryFailed: (error: unknown) => log.push(`failed(${(error as Error).message})`),
    };
    return { log, consumer };
  }

  it('answers at once when the delivery ends in the call, and stays attached (undefined) otherwise', () => {
    const channel = new WatchChannel();
    channel.push(event('a'));
    channel.push(event('b'));
    channel.push(event('c'));
    const { log, consumer } = recorder();
    expect(channel.deliverTo(consumer, 2)).toBe(true); // one left queued: call again
    expect(channel.deliverTo(consumer)).toBeUndefined(); // drained: attached
    expect(channel.receiving).toBe(true);
    channel.push(event('d'));
    channel.close();
    expect(log).toEqual(['a', 'b', 'c', 'd', 'delivered(false)']);
    expect(channel.deliverTo(consumer)).toBe(false); // ended, nothing left
  });

  it('detaches a consumer that asks to pause with delivered(true), and queues what follows', () => {
    const channel = new WatchChannel();
    let accept = true;
    const { log, consumer } = recorder(() => accept);
    expect(channel.deliverTo(consumer)).toBeUndefined();
    accept = false;
    channel.push(event('a'));
    channel.push(event('b'));
    expect(log).toEqual(['a', 'delivered(true)']);
    expect(channel.pending).toBe(1);
    accept = true;
    expect(channel.deliverTo(consumer)).toBeUndefined();
    expect(log).toEqual(['a', 'delivered(true)', 'b']);
  });

  it('stops the channel and tells the consumer when it throws', () => {
    const channel = new WatchChannel();
    const { log, consumer } = recorder(() => {
      throw new Error('socket gone');
    });
    expect(channel.deliverTo(consumer)).toBeUndefined();
    expect(channel.push(event('a'))).toBe(false);
    expect(log).toEqual(['a', 'failed(socket gone)']);
    expect(channel.closed).toBe(true);
  });
});
