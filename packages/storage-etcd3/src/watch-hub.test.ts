import { StorageError, type KVEvent } from '@kapi/storage';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyCodec, prefixRangeEndBytes } from './etcd-keys.js';
import { startEtcd, type EtcdInstance } from './testing/index.js';
import { WatchHub, type RawWatchStream } from './watch-hub.js';

let etcd: EtcdInstance;
let client: Etcd3;
let opened: RawWatchStream[] = [];
let fragments = 0;

beforeAll(async () => {
  // Periodic progress effectively off, so that every notification here answers a RequestProgress.
  etcd = await startEtcd({ progressNotifyIntervalMs: 60_000 });
  client = new Etcd3({ hosts: etcd.endpoint, grpcOptions: { 'grpc.max_receive_message_length': 256 << 20 } });
});
afterAll(async () => {
  client?.close();
  await etcd?.stop();
});

function newHub(): WatchHub {
  opened = [];
  return new WatchHub({
    openStream: async () => {
      const stream = await client.watchClient.watch();
      opened.push(stream);
      stream.on('data', (response) => {
        if (response.fragment) fragments++;
      });
      return stream;
    },
    keys: new KeyCodec(''),
  });
}

const range = (prefix: string) => {
  const key = Buffer.from(prefix);
  return { key, rangeEnd: prefixRangeEndBytes(key) };
};

async function eventually(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function currentRevision(): Promise<number> {
  return Number((await client.kv.range({ key: Buffer.from('x'), count_only: true })).header.revision);
}

describe('WatchHub', () => {
  it('fans a RequestProgress reply out to every watch on the stream that asked for progress', async () => {
    const hub = newHub();
    const start = (await currentRevision()) + 1;
    const progressA: number[] = [];
    const progressB: number[] = [];
    const progressSilent: number[] = [];
    const eventsA: KVEvent[] = [];
    hub.watch(range('/hub/a/'), start, true, {
      onEvents: (events) => eventsA.push(...events),
      onProgress: (revision) => progressA.push(revision),
      onError: () => undefined,
    });
    hub.watch(range('/hub/b/'), start, true, {
      onEvents: () => undefined,
      onProgress: (revision) => progressB.push(revision),
      onError: () => undefined,
    });
    hub.watch(range('/hub/c/'), start, false, {
      onEvents: () => undefined,
      onProgress: (revision) => progressSilent.push(revision),
      onError: () => undefined,
    });
    await client.put('/hub/a/1').value('x').exec();
    await eventually(() => eventsA.length === 1);
    await client.put('/hub/other').value('x').exec();
    const revision = await currentRevision();
    hub.requestProgress();
    await eventually(() => progressA.length > 0 && progressB.length > 0);
    expect(progressA).toEqual([revision]);
    expect(progressB).toEqual([revision]);
    expect(progressSilent).toEqual([]);
    expect(opened).toHaveLength(1);
    hub.close();
  });

  it('hands a scoped RequestProgress reply only to the watches the scope overlaps, and every watch resumes from it', async () => {
    const hub = newHub();
    const start = (await currentRevision()) + 1;
    const progress = { prefix: [] as number[], key: [] as number[], other: [] as number[] };
    const watch = (watched: { key: Buffer; rangeEnd?: Buffer }, into: number[]) =>
      hub.watch(watched, start, true, { onEvents: () => undefined, onProgress: (revision) => into.push(revision), onError: () => undefined });
    watch(range('/scoped/a/'), progress.prefix);
    watch({ key: Buffer.from('/scoped/a/one') }, progress.key);
    const other = watch(range('/scoped/b/'), progress.other);
    await client.put('/scoped/c').value('x').exec();
    const first = await currentRevision();
    hub.requestProgress(range('/scoped/a'));
    await eventually(() => progress.prefix.length > 0 && progress.key.length > 0);
    expect(progress.prefix).toEqual([first]);
    expect(progress.key).toEqual([first]);
    expect(progress.other).toEqual([]);
    // A request of its own reaches the other watch (the reply after a scoped one still covers that scope).
    await client.put('/scoped/c').value('y').exec();
    const second = await currentRevision();
    hub.requestProgress();
    await eventually(() => progress.other.length > 0);
    expect(progress.other).toEqual([second]);
    expect(progress.prefix).toEqual([first, second]);
    // The first reply moved the unnotified watch's resume point too: it was not left behind.
    expect((other as unknown as { nextRevision: number }).nextRevision).toBe(second + 1);
    hub.close();
  });

  it('reassembles fragmented responses', async () => {
    const hub = newHub();
    const start = (await currentRevision()) + 1;
    const big = Buffer.alloc(700 * 1024, 7);
    for (let index = 0; index < 4; index++) await client.put(`/hub/big/${index}`).value(big).exec();
    const batches: KVEvent[][] = [];
    hub.watch(range('/hub/big/'), start, false, {
      onEvents: (events) => batches.push(events),
      onError: () => undefined,
    });
    await eventually(() => batches.flat().length === 4);
    hub.close();
    expect(batches.flat().map((event) => event.entry.key)).toEqual(
      [0, 1, 2, 3].map((index) => `/hub/big/${index}`),
    );
    expect(batches.flat().every((event) => event.entry.value.length === big.length)).toBe(true);
    expect(fragments).toBeGreaterThan(0);
    expect(batches).toHaveLength(1);
  });

  it('cancels its stream when the last watch goes and opens a new one for the next', async () => {
    const hub = newHub();
    const start = (await currentRevision()) + 1;
    const seen: KVEvent[] = [];
    const first = hub.watch(range('/hub/d/'), start, false, {
      onEvents: (events) => seen.push(...events),
      onError: () => undefined,
    });
    await eventually(() => opened.length === 1);
    first.cancel();
    expect(hub.size).toBe(0);
    await client.put('/hub/d/1').value('x').exec();
    const second = hub.watch(range('/hub/d/'), start, false, {
      onEvents: (events) => seen.push(...events),
      onError: () => undefined,
    });
    await eventually(() => seen.length === 1);
    expect(opened).toHaveLength(2);
    second.cancel();
    hub.close();
  });

  it('watches from now when the start revision is 0', async () => {
    const hub = newHub();
    await client.put('/hub/now/old').value('x').exec();
    const seen: KVEvent[] = [];
    const progress: number[] = [];
    hub.watch(range('/hub/now/'), 0, true, {
      onEvents: (events) => seen.push(...events),
      onProgress: (revision) => progress.push(revision),
      onError: () => undefined,
    });
    // A progress reply proves the watch exists on the server.
    await eventually(() => {
      if (progress.length === 0) hub.requestProgress();
      return progress.length > 0;
    });
    await client.put('/hub/now/new').value('x').exec();
    await eventually(() => seen.length === 1);
    hub.close();
    expect(seen.map((event) => event.entry.key)).toEqual(['/hub/now/new']);
  });

  it('ends its watches with an Unreachable error on close, and those started after it', async () => {
    const hub = newHub();
    const start = (await currentRevision()) + 1;
    const errors: Error[] = [];
    hub.watch(range('/hub/e/'), start, false, {
      onEvents: () => undefined,
      onError: (error) => errors.push(error),
    });
    await eventually(() => opened.length === 1);
    hub.close();
    expect(errors).toHaveLength(1);
    expect(StorageError.isInstance(errors[0]) && errors[0].code).toBe('Unreachable');
    const error = await new Promise<Error>((resolve) =>
      hub.watch(range('/hub/e/'), 1, false, { onEvents: () => undefined, onError: resolve }),
    );
    expect(error.message).toContain('closed');
  });
});
