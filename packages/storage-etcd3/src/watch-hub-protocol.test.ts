import { EventEmitter } from 'node:events';
import { RevisionCompactedError, type KVEvent } from '@kapi/storage';
import type { IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { KeyCodec } from './etcd-keys.js';
import { WatchHub, type RawWatchStream } from './watch-hub.js';

/** A scripted stand-in for etcd's watch stream: records requests; the test emits responses. */
class FakeStream extends EventEmitter {
  readonly written: IWatchRequest[] = [];
  ended = false;
  cancelled = false;
  write(request: IWatchRequest): void {
    this.written.push(request);
  }
  end(): void {
    this.ended = true;
  }
  cancel(): void {
    this.cancelled = true;
  }
  respond(fields: Partial<IWatchResponse> & { revision?: number }): void {
    const { revision = 0, ...rest } = fields;
    const response: IWatchResponse = {
      header: { cluster_id: '1', member_id: '1', revision: String(revision), raft_term: '2' },
      watch_id: '0',
      created: false,
      canceled: false,
      compact_revision: '0',
      cancel_reason: '',
      fragment: false,
      events: [],
      ...rest,
    };
    this.emit('data', response);
  }
  creates(): { watchId: string; start: number | undefined }[] {
    return this.written.flatMap((request) =>
      request.create_request
        ? [
            {
              watchId: String(request.create_request.watch_id),
              start:
                request.create_request.start_revision === undefined
                  ? undefined
                  : Number(request.create_request.start_revision),
            },
          ]
        : [],
    );
  }
}

function put(key: string, revision: number): IEvent {
  return {
    type: 'Put',
    kv: {
      key: Buffer.from(key),
      create_revision: String(revision),
      mod_revision: String(revision),
      version: '1',
      value: Buffer.from('v'),
      lease: '0',
    },
    prev_kv: null as unknown as IEvent['prev_kv'],
  };
}

function setup() {
  const streams: FakeStream[] = [];
  const hub = new WatchHub({
    openStream: async () => {
      const stream = new FakeStream();
      streams.push(stream);
      return stream as unknown as RawWatchStream;
    },
    keys: new KeyCodec(''),
    initialBackoffMs: 1,
    maxBackoffMs: 5,
  });
  return { hub, streams };
}

function recorder() {
  const batches: number[][] = [];
  const progress: number[] = [];
  const errors: Error[] = [];
  return {
    batches,
    progress,
    errors,
    listener: {
      onEvents: (events: KVEvent[]) => batches.push(events.map((event) => event.entry.modRevision)),
      onProgress: (revision: number) => progress.push(revision),
      onError: (error: Error) => errors.push(error),
    },
  };
}

async function eventually(condition: () => boolean): Promise<void> {
  for (let attempt = 0; !condition(); attempt++) {
    if (attempt > 200) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const range = { key: Buffer.from('/a/'), rangeEnd: Buffer.from('/a0') };

describe('WatchHub protocol (scripted stream)', () => {
  it('resumes from the last delivered event, not from created or batch headers, without repeating events', async () => {
    const { hub, streams } = setup();
    const watch = recorder();
    hub.watch(range, 5, false, watch.listener);
    await eventually(() => streams.length === 1);
    const first = streams[0]!;
    const [create] = first.creates();
    expect(create?.start).toBe(5);
    first.respond({ watch_id: create!.watchId, created: true, revision: 100 });
    first.respond({ watch_id: create!.watchId, revision: 1000, events: [put('/a/x', 5), put('/a/y', 6)] });
    first.emit('error', new Error('connection reset'));
    await eventually(() => streams.length === 2);
    expect(first.cancelled).toBe(true);
    const second = streams[1]!;
    const [again] = second.creates();
    expect(again?.start).toBe(7);
    expect(again?.watchId).not.toBe(create?.watchId);
    second.respond({ watch_id: again!.watchId, created: true, revision: 1000 });
    second.respond({ watch_id: again!.watchId, revision: 1000, events: [put('/a/y', 6), put('/a/z', 7)] });
    expect(watch.batches).toEqual([[5, 6], [7]]);
    expect(watch.errors).toEqual([]);
    hub.close();
  });

  it('moves the resume point with progress for its own watch id and with RequestProgress replies', async () => {
    const { hub, streams } = setup();
    const a = recorder();
    const b = recorder();
    hub.watch(range, 10, true, a.listener);
    hub.watch(range, 10, false, b.listener);
    await eventually(() => streams.length === 1);
    const first = streams[0]!;
    const [createA, createB] = first.creates();
    first.respond({ watch_id: createA!.watchId, created: true, revision: 9 });
    first.respond({ watch_id: createB!.watchId, created: true, revision: 9 });
    first.respond({ watch_id: createA!.watchId, revision: 20 });
    first.respond({ watch_id: createA!.watchId, revision: 15 }); // stale: ignored
    first.respond({ watch_id: createB!.watchId, revision: 30 });
    expect(a.progress).toEqual([20]);
    expect(b.progress).toEqual([]); // did not ask for progress
    first.respond({ watch_id: '-1', revision: 40 });
    expect(a.progress).toEqual([20, 40]);
    first.emit('end');
    await eventually(() => streams.length === 2);
    expect(streams[1]!.creates().map((create) => create.start)).toEqual([41, 41]);
    hub.close();
  });

  it('fails the oldest unconfirmed create when etcd refuses it with watch id -1', async () => {
    const { hub, streams } = setup();
    const a = recorder();
    const b = recorder();
    hub.watch(range, 1, false, a.listener);
    hub.watch(range, 1, false, b.listener);
    await eventually(() => streams.length === 1);
    const stream = streams[0]!;
    const [createA] = stream.creates();
    stream.respond({ watch_id: createA!.watchId, created: true, revision: 3 });
    stream.respond({
      watch_id: '-1',
      created: true,
      canceled: true,
      cancel_reason: 'etcdserver: permission denied',
    });
    expect(a.errors).toEqual([]);
    expect(b.errors.map((error) => error.message)).toEqual([
      'etcd refused the watch: etcdserver: permission denied',
    ]);
    hub.close();
  });

  it('ends a watch whose resume point was compacted with RevisionCompactedError', async () => {
    const { hub, streams } = setup();
    const watch = recorder();
    hub.watch(range, 3, false, watch.listener);
    await eventually(() => streams.length === 1);
    const stream = streams[0]!;
    const [create] = stream.creates();
    stream.respond({ watch_id: create!.watchId, created: true, revision: 8 });
    stream.respond({ watch_id: create!.watchId, revision: 8, events: [put('/a/x', 4)] });
    stream.respond({ watch_id: create!.watchId, canceled: true, compact_revision: '12', revision: 20 });
    expect(watch.errors).toHaveLength(1);
    expect(watch.errors[0]).toBeInstanceOf(RevisionCompactedError);
    expect(watch.errors[0]).toMatchObject({ requestedRevision: 5, compactedRevision: 12 });
    stream.respond({ watch_id: create!.watchId, revision: 30, events: [put('/a/y', 30)] });
    expect(watch.batches).toEqual([[4]]);
    // The last watch is gone: the stream is half-closed and cancelled.
    expect(stream.ended && stream.cancelled).toBe(true);
    hub.close();
  });

  it('cancels a watch on the stream while others remain, and ignores its later events', async () => {
    const { hub, streams } = setup();
    const a = recorder();
    const b = recorder();
    const watchA = hub.watch(range, 1, false, a.listener);
    hub.watch(range, 1, false, b.listener);
    await eventually(() => streams.length === 1);
    const stream = streams[0]!;
    const [createA] = stream.creates();
    watchA.cancel();
    expect(stream.written.at(-1)).toEqual({ cancel_request: { watch_id: createA!.watchId } });
    stream.respond({ watch_id: createA!.watchId, revision: 2, events: [put('/a/x', 2)] });
    expect(a.batches).toEqual([]);
    expect(stream.cancelled).toBe(false);
    hub.close();
    expect(stream.cancelled).toBe(true);
  });
});
