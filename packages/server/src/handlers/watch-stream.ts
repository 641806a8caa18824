import type { ServerResponse } from 'node:http';
import { groupVersionString } from '@kapi/apimachinery';
import type { StorageWatchEvent, Watch, WatchConsumer } from '@kapi/storage';
import type { HandlerEnvironment, ResourceRoute } from './resource-handler.js';
import { watchEventLine, type PreSerializedWatchEvent, type WatchForm } from './watch-event-line.js';
import { WatchLineWriter } from './watch-line-writer.js';
import { WatchTimeouts, type Expiring } from './watch-timeouts.js';

/** The most events written in one flush. */
const maxBatch = 256;

/** Every watch's timeout, on one timer. */
const timeouts = new WatchTimeouts();

type EventCounter = { inc(value?: number): void };

/**
 * The watch-event counter of each route, bound once (not once per watch), per server's metrics: keyed by
 * the metrics first, so a stopped server's metrics (and through them its caches) are not kept alive by
 * routes that outlive it (built-in resource routes are shared by every server in the process).
 */
const counters = new WeakMap<object, WeakMap<ResourceRoute, EventCounter>>();

function eventCounter(route: ResourceRoute, environment: HandlerEnvironment): EventCounter | undefined {
  const metrics = environment.metrics;
  if (!metrics) return undefined;
  let byRoute = counters.get(metrics);
  if (!byRoute) {
    byRoute = new WeakMap();
    counters.set(metrics, byRoute);
  }
  let counter = byRoute.get(route);
  if (!counter) {
    counter = metrics.watchEventCounter(groupVersionKind(route));
    byRoute.set(route, counter);
  }
  return counter;
}

function groupVersionKind(route: ResourceRoute): { group: string; version: string; kind: string } {
  return { group: route.definition.group, version: route.version, kind: route.definition.kind };
}

/** What a {@link WatchStream} writes and how long it lasts. */
export interface WatchStreamOptions {
  route: ResourceRoute;
  environment: HandlerEnvironment;
  allowBookmarks: boolean;
  /** The `scope` label of the long-running requests gauge. */
  scope: string;
  /** When the stream ends (epoch ms). */
  deadline: number;
  form?: WatchForm | undefined;
}

const streamKey = Symbol('kapi.watch-stream');
type StreamResponse = ServerResponse & { [streamKey]?: WatchStream | undefined };

/** The response's `close` listener, one function for every stream (`this` is the response). */
function onResponseClose(this: StreamResponse): void {
  this[streamKey]?.close();
}

/**
 * One watch being served: its state between events is this one object (no suspended async function,
 * per-watch closure, timer or abort controller), which is what an idle watch costs beyond its socket.
 * Events come in push mode (`Watch.deliverTo`) when the watch has it, else by iteration; it ends at its
 * deadline, when the client goes away, on {@link close} (server shutdown) or when the storage watch ends.
 */
export class WatchStream implements Expiring, WatchConsumer {
  private watch: Watch | undefined;
  private writer: WatchLineWriter | undefined;
  private closing = false;
  private finished = false;
  /** False once a write of the current batch asked to wait for `drain`. */
  private flowing = true;
  private readonly apiVersion: string;
  private readonly counter: EventCounter | undefined;
  private readonly timeoutBucket: number;
  /** Settles {@link done}; a failure resolves it with a rejected promise, so no `reject` is kept per watch. */
  private settleDone!: (outcome?: Promise<never>) => void;
  /** Settles when the stream has ended (rejects when its storage watch or writing failed). */
  readonly done: Promise<void>;

  constructor(
    private readonly response: StreamResponse,
    private readonly options: WatchStreamOptions,
  ) {
    this.done = new Promise<void>((resolve) => (this.settleDone = resolve));
    const { route, environment } = options;
    this.apiVersion = groupVersionString({ group: route.definition.group, version: route.version });
    this.counter = eventCounter(route, environment);
    environment.watches.add(this);
    this.track(1);
    this.timeoutBucket = timeouts.add(this, options.deadline);
    response[streamKey] = this;
    response.on('close', onResponseClose);
  }

  /** Serves `watch` once it is established: the headers, then its events until the stream ends. */
  serve(watch: Promise<Watch>): Promise<void> {
    watch.then(
      (established) => {
        try {
          this.begin(established);
        } catch (error) {
          this.finish(error);
        }
      },
      (error: unknown) => this.finish(error),
    );
    return this.done;
  }

  /** Ends the stream now (queued events are dropped), as a gone client, the timeout or shutdown do. */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    if (this.watch) this.finish();
  }

  /** The timeout. */
  expire(): void {
    this.close();
  }

  private begin(watch: Watch): void {
    this.watch = watch;
    const response = this.response;
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    response.flushHeaders();
    this.writer = new WatchLineWriter(response);
    if (this.closing) this.finish();
    else if (watch.deliverTo) this.push();
    else this.pull(watch).then(
      () => this.finish(),
      (error: unknown) => this.finish(error),
    );
  }

  /**
   * Push mode: the watch hands events to {@link receive} as it produces them (the queued ones first, as
   * one flush). This stream stays attached to an idle watch as it is, with no promise or closure; when
   * the connection asks to wait, the watch queues events until it has drained.
   */
  private push(): void {
    const watch = this.watch as Watch & Required<Pick<Watch, 'deliverTo'>>;
    const writer = this.writer as WatchLineWriter;
    // Batches that end at once (more queued than one batch) loop here rather than recurse.
    for (;;) {
      if (this.closing) return this.finish();
      this.flowing = true;
      writer.cork();
      let more: boolean | undefined;
      try {
        more = watch.deliverTo(this, maxBatch);
      } catch (error) {
        return this.finish(error);
      } finally {
        writer.uncork();
      }
      if (more === undefined) return;
      if (!more) return this.finish();
      if (!this.flowing) return void writer.drained().then(() => this.push());
    }
  }

  /** The attached delivery ended (see `WatchConsumer`): the watch ended, or this stream asked to pause. */
  delivered(more: boolean): void {
    if (!more || this.closing) this.finish();
    else if (this.flowing) this.push();
    else (this.writer as WatchLineWriter).drained().then(() => this.push());
  }

  /** Writing an event threw (see `WatchConsumer`): the watch has stopped. */
  deliveryFailed(error: unknown): void {
    this.finish(error);
  }

  /** Pull mode, for watches without push: the events queued behind each one go out in the same flush. */
  private async pull(watch: Watch): Promise<void> {
    const writer = this.writer as WatchLineWriter;
    for await (const first of watch as AsyncIterable<PreSerializedWatchEvent>) {
      if (this.closing) break;
      // Upstream flushes when its channel is empty: one socket write per burst instead of one per event.
      const queued = (watch.takeBuffered?.(maxBatch) ?? []) as readonly PreSerializedWatchEvent[];
      if (queued.length > 0) writer.cork();
      this.flowing = true;
      this.receive(first);
      for (const event of queued) this.receive(event);
      if (queued.length > 0) writer.uncork();
      if (!this.flowing) await writer.drained();
    }
  }

  /** Writes one event's line (see `WatchConsumer`); false when the connection asks to wait for `drain`. */
  receive(event: StorageWatchEvent): boolean {
    const options = this.options;
    if (event.type === 'BOOKMARK' && !options.allowBookmarks) return true;
    this.counter?.inc();
    const line = watchEventLine(event, options.route, this.apiVersion, options.form, options.environment.now);
    const written = (this.writer as WatchLineWriter).write(line);
    if (!written) this.flowing = false;
    return written;
  }

  /**
   * Ends the stream once: stops the storage watch, ends the response (unless writing failed: then the
   * error goes up the handler chain, which cuts the connection) and forgets the stream everywhere.
   */
  private finish(error?: unknown): void {
    if (this.finished) return;
    this.finished = this.closing = true;
    this.watch?.stop();
    this.writer?.stopWaiting();
    timeouts.remove(this, this.timeoutBucket);
    const response = this.response;
    response.off('close', onResponseClose);
    response[streamKey] = undefined;
    this.options.environment.watches.remove(this);
    this.track(-1);
    if (error !== undefined) return this.settleDone(Promise.reject(error));
    if (this.watch && !response.writableEnded) response.end();
    this.settleDone();
  }

  /** The registered-watchers and long-running-requests gauges. */
  private track(delta: number): void {
    const { route, environment, scope } = this.options;
    const metrics = environment.metrics;
    if (!metrics) return;
    const gvk = groupVersionKind(route);
    metrics.trackWatchers(gvk, delta);
    metrics.trackLongRunning({ verb: 'watch', group: gvk.group, version: gvk.version, resource: route.definition.resource, scope }, delta);
  }
}
