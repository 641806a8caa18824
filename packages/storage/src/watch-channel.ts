import type { StorageWatchEvent, Watch, WatchConsumer, WatchReceiver } from './interfaces.js';

/** Options of a {@link WatchChannel}. */
export interface WatchChannelOptions {
  /**
   * Maximum events queued for a consumer that is not reading. When exceeded the channel closes itself
   * (`overflowed` becomes true) instead of blocking the producer. Default: unbounded.
   */
  capacity?: number;
  /** Called once when the channel stops (by the consumer, the producer, or overflow). */
  onStop?: () => void;
  /** Stop when this signal aborts. */
  signal?: AbortSignal;
}

/** What takeBuffered returns when nothing is queued (shared, frozen). */
const noEvents: readonly StorageWatchEvent[] = Object.freeze([]);
const goOn = Promise.resolve(true);
const ended = Promise.resolve(false);

/**
 * A push-to-pull event queue implementing {@link Watch}: producers call `push`/`close`, consumers
 * iterate, or receive events synchronously in push mode ({@link deliver}) while they keep up. A slow
 * consumer never blocks the producer: past `capacity` the channel closes.
 */
export class WatchChannel implements Watch {
  private readonly queue: StorageWatchEvent[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<StorageWatchEvent>) => void) | undefined;
  /** Push mode: the attached consumer (only while nothing is queued). */
  private consumer: WatchConsumer | undefined;
  private stopped = false;
  /** Made when first asked for (an idle watch's channel is rarely asked). */
  private stoppedPromise: Promise<void> | undefined;
  private resolveDone: (() => void) | undefined;
  // Copied out of the options, which the channel does not keep.
  private readonly capacity: number | undefined;
  private readonly onStop: (() => void) | undefined;
  /** True once the channel closed because its consumer fell more than `capacity` events behind. */
  overflowed = false;

  constructor(options: WatchChannelOptions = {}) {
    this.capacity = options.capacity;
    this.onStop = options.onStop;
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) this.stop();
      else signal.addEventListener('abort', () => this.stop(), { once: true });
    }
  }

  /** Settles once the channel has stopped. */
  get done(): Promise<void> {
    this.stoppedPromise ??= this.stopped ? Promise.resolve() : new Promise((resolve) => (this.resolveDone = resolve));
    return this.stoppedPromise;
  }

  /** True once stopped; pushes are ignored from then on. */
  get closed(): boolean {
    return this.stopped;
  }

  /** True while a consumer in push mode is attached: pushes are handed to it at once (nothing is queued). */
  get receiving(): boolean {
    return this.consumer !== undefined;
  }

  /** Number of events queued and not yet read. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  /** Queues an event. Returns false when the channel is closed (or just closed by overflow). */
  push(event: StorageWatchEvent): boolean {
    if (this.stopped) return false;
    const consumer = this.consumer;
    if (consumer) return this.handOver(consumer, event);
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value: event, done: false });
      return true;
    }
    if (this.capacity !== undefined && this.pending >= this.capacity) {
      this.overflowed = true;
      this.stop();
      return false;
    }
    this.queue.push(event);
    return true;
  }

  /** Producer side: ends the stream after the queued events are read. */
  close(): void {
    this.finish(false);
  }

  /** Consumer side: ends the stream now, dropping queued events. */
  stop(): void {
    this.finish(true);
  }

  private finish(drop: boolean): void {
    if (this.stopped) return;
    this.stopped = true;
    if (drop) {
      this.queue.length = 0;
      this.head = 0;
    }
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.({ value: undefined, done: true });
    this.detach(false);
    this.afterStop();
    this.resolveDone?.();
  }

  /** Runs once when the channel stops: the `onStop` option. A subclass may answer it instead (no callback to keep). */
  protected afterStop(): void {
    this.onStop?.();
  }

  private next(): Promise<IteratorResult<StorageWatchEvent>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++] as StorageWatchEvent;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.stopped) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** Takes up to `max` events already queued, without waiting (empty when none are). */
  takeBuffered(max = Number.POSITIVE_INFINITY): readonly StorageWatchEvent[] {
    const available = Math.min(this.queue.length - this.head, max);
    if (available <= 0) return noEvents;
    const taken = this.queue.slice(this.head, this.head + available);
    this.head += available;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    return taken;
  }

  /** Push mode (see {@link Watch.deliver}): {@link deliverTo} with a promise for its outcome. */
  deliver(receive: WatchReceiver, max = Number.POSITIVE_INFINITY): Promise<boolean> {
    return deliverByPromise(this, receive, max);
  }

  /**
   * Push mode (see {@link Watch.deliverTo}): hands `consumer` up to `max` queued events, then, when none
   * are left and it kept up, attaches it so that pushes hand it their events directly until it asks to pause.
   */
  deliverTo(consumer: WatchConsumer, max = Number.POSITIVE_INFINITY): boolean | undefined {
    if (this.consumer) throw new Error('WatchChannel: deliver called while a delivery is attached');
    let flowing = true;
    for (let count = 0; count < max && this.head < this.queue.length; count++) {
      flowing = consumer.receive(this.queue[this.head++] as StorageWatchEvent) && flowing;
    }
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (this.head < this.queue.length || !flowing) return true;
    if (this.stopped) return false;
    this.consumer = consumer;
    return undefined;
  }

  /** Hands a pushed event to the attached consumer; detaches it when it asks to pause or throws (which stops the channel). */
  private handOver(consumer: WatchConsumer, event: StorageWatchEvent): boolean {
    let flowing: boolean;
    try {
      flowing = consumer.receive(event);
    } catch (error) {
      this.consumer = undefined;
      consumer.deliveryFailed(error);
      this.stop();
      return false;
    }
    if (!flowing) this.detach(true);
    return true;
  }

  /** Ends push mode: the attached consumer's delivery ends with `more`. */
  private detach(more: boolean): void {
    const consumer = this.consumer;
    this.consumer = undefined;
    consumer?.delivered(more);
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageWatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/**
 * {@link Watch.deliver} in terms of {@link Watch.deliverTo}: a consumer made of `receive` and a promise
 * settled with the delivery's outcome.
 */
export function deliverByPromise(
  watch: { deliverTo(consumer: WatchConsumer, max?: number): boolean | undefined },
  receive: WatchReceiver,
  max?: number,
): Promise<boolean> {
  let settle: ((more: boolean) => void) | undefined;
  let fail: ((error: unknown) => void) | undefined;
  const outcome = watch.deliverTo(
    {
      receive,
      delivered: (more) => settle?.(more),
      deliveryFailed: (error) => fail?.(error),
    },
    max,
  );
  if (outcome !== undefined) return outcome ? goOn : ended;
  return new Promise((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
}
