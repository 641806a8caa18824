import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { identityTransformer, jsonCodec, type Codec } from './codec.js';
import type { KVBackend, KVEntry, KVWatchListener } from './kv-backend.js';
import { Store } from './store.js';
import { StoreCodec } from './store-codec.js';

/** A backend holding copies of the bytes it is given, as SQLite and etcd do (reads return other buffers). */
function copyingBackend(): KVBackend {
  const entries = new Map<string, KVEntry>();
  let revision = 0;
  const unsupported = (): never => {
    throw new Error('not used by this test');
  };
  return {
    name: 'copying',
    async get(key) {
      const entry = entries.get(key);
      return { ...(entry ? { entry: { ...entry, value: Uint8Array.from(entry.value) } } : {}), revision };
    },
    async create(key, value) {
      revision += 1;
      entries.set(key, { key, value: Uint8Array.from(value), createRevision: revision, modRevision: revision });
      return { succeeded: true, revision };
    },
    range: unsupported,
    update: unsupported,
    delete: unsupported,
    watch: unsupported,
    currentRevision: async () => revision,
    compact: unsupported,
    compactedRevision: async () => 0,
    close: async () => undefined,
  } as KVBackend;
}

/**
 * The JSON codec without its verbatim encoding (so a write's read-back parses), recording each parse in
 * `parses`.
 */
function countingParses(parses: Uint8Array[]): Codec {
  return { encode: jsonCodec.encode, decode: (data) => (parses.push(data), jsonCodec.decode(data)), decodesVerbatim: () => true };
}

/** The JSON codec, noting each buffer it encoded and whether each decode was given one of them. */
function noting(recognizesOwnEncodings: boolean): Codec & { decodedOwn: boolean[] } {
  const encoded = new WeakSet<Uint8Array>();
  const decodedOwn: boolean[] = [];
  return {
    encode(object) {
      const data = jsonCodec.encode(object);
      encoded.add(data);
      return data;
    },
    decode(data) {
      decodedOwn.push(encoded.has(data));
      return jsonCodec.decode(data);
    },
    recognizesOwnEncodings,
    decodedOwn,
  };
}

const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: 'y' } };

describe('StoreCodec and codecs that recognise their own encodings', () => {
  it('decodes a read of its own recent write from the buffer the codec encoded, not the backend copy', async () => {
    const codec = noting(true);
    const store = new Store({ kv: copyingBackend(), codec });
    await store.create('/registry/configmaps/a', object);
    const read = await store.get('/registry/configmaps/a');
    expect(read?.data).toEqual({ x: 'y' });
    expect(read?.metadata.resourceVersion).toBe('1');
    expect(codec.decodedOwn).toEqual([true, true]);
  });

  it('leaves other codecs to the backend copy', async () => {
    const codec = noting(false);
    const store = new Store({ kv: copyingBackend(), codec });
    await store.create('/registry/configmaps/a', object);
    await store.get('/registry/configmaps/a');
    expect(codec.decodedOwn).toEqual([true, false]);
  });
});

describe('StoreCodec: a write read back by its watch event and by the writer', () => {
  /** Reverses the bytes: stored values differ from the plain ones, as with encryption. */
  const reversing = {
    toStorage: (data: Uint8Array) => Uint8Array.from(data).reverse(),
    fromStorage: (data: Uint8Array) => ({ data: Uint8Array.from(data).reverse(), stale: false }),
  };
  const key = '/registry/configmaps/a';
  const written = (codec: StoreCodec, revision: number) => {
    const encoded = codec.encode(key, object);
    codec.written(key, encoded);
    // What a backend hands the watch: its own copy of the stored bytes.
    const entry: KVEntry = { key, value: Uint8Array.from(encoded.stored), createRevision: revision, modRevision: revision };
    return { encoded, entry };
  };

  it('parses the bytes once: the writer takes the object the event decoded, the event keeps a copy', () => {
    const parses: Uint8Array[] = [];
    const codec = new StoreCodec(countingParses(parses), reversing, 1 << 20);
    const { encoded, entry } = written(codec, 7);
    const event = codec.decodeEvent(entry);
    const second = codec.decodeEvent(entry);
    const updated = codec.decodeWritten(key, encoded, 7);
    expect(parses).toHaveLength(1);
    expect(updated).toEqual({ ...object, metadata: { name: 'a', resourceVersion: '7' } });
    expect(event).toEqual(updated);
    expect(second).toEqual(updated);
    expect(event).not.toBe(updated);
    expect(second).not.toBe(updated);
    expect(event.metadata).not.toBe(updated.metadata);
    // Handed over once: the next read back parses again.
    codec.decodeWritten(key, encoded, 7);
    expect(parses).toHaveLength(2);
  });

  it('parses again for another revision, for bytes it did not write, and without a watch event', () => {
    const parses: Uint8Array[] = [];
    const codec = new StoreCodec(countingParses(parses), reversing, 1 << 20);
    const { encoded, entry } = written(codec, 7);
    codec.decodeEvent(entry);
    expect(codec.decodeWritten(key, encoded, 8).metadata.resourceVersion).toBe('8');
    expect(parses).toHaveLength(2);
    const other = codec.encode(key, { ...object, data: { x: 'z' } });
    expect(codec.decodeWritten(key, other, 7).data).toEqual({ x: 'z' });
    expect(parses).toHaveLength(3);
    const later = written(codec, 9);
    expect(codec.decodeWritten(key, later.encoded, 9).metadata.resourceVersion).toBe('9');
    expect(parses).toHaveLength(4);
  });
});

describe('StoreCodec: a watched store whose write is read back before its watch event (etcd order)', () => {
  const key = '/registry/configmaps/a';
  const counting = () => {
    const parses: Uint8Array[] = [];
    const codec = new StoreCodec(countingParses(parses), identityTransformer, 1 << 20);
    return { codec, parses };
  };
  const write = (codec: StoreCodec, revision: number) => {
    const encoded = codec.encode(key, object);
    codec.written(key, encoded);
    const entry: KVEntry = { key, value: Uint8Array.from(encoded.stored), createRevision: revision, modRevision: revision };
    return { encoded, entry };
  };

  it('parses the bytes once, without a transformer: the event takes the copy the writer kept', () => {
    const { codec, parses } = counting();
    const ended = codec.watchStarted();
    const { encoded, entry } = write(codec, 7);
    const created = codec.decodeWritten(key, encoded, 7);
    // The writer's caller may change its object: the event's stays as stored.
    created.metadata.labels = { changed: 'by the caller' };
    expect(codec.rememberedWrites).toBe(1);
    const event = codec.decodeEvent(entry);
    expect(parses).toHaveLength(1);
    expect(event).toEqual({ ...object, metadata: { name: 'a', resourceVersion: '7' } });
    expect(event.metadata).not.toBe(created.metadata);
    // Shared: nothing of the write is kept any longer.
    expect(codec.rememberedWrites).toBe(0);
    // Handed over once: another event of the same entry parses.
    codec.decodeEvent(entry);
    expect(parses).toHaveLength(2);
    ended();
  });

  it('in the other order (the event first) the writer takes the event\'s decode, and nothing is kept after', () => {
    const { codec, parses } = counting();
    const ended = codec.watchStarted();
    const { encoded, entry } = write(codec, 7);
    const event = codec.decodeEvent(entry);
    const created = codec.decodeWritten(key, encoded, 7);
    expect(parses).toHaveLength(1);
    expect(created).toEqual(event);
    expect(created).not.toBe(event);
    expect(codec.rememberedWrites).toBe(0);
    ended();
  });

  it('keeps nothing for an event when the store is not watched, or for another revision', () => {
    const { codec, parses } = counting();
    const first = write(codec, 7);
    expect(codec.rememberedWrites).toBe(0);
    codec.decodeWritten(key, first.encoded, 7);
    codec.decodeEvent(first.entry);
    expect(parses).toHaveLength(2);
    const ended = codec.watchStarted();
    const second = write(codec, 8);
    codec.decodeWritten(key, second.encoded, 8);
    expect(codec.decodeEvent({ ...second.entry, modRevision: 9 }).metadata.resourceVersion).toBe('9');
    expect(parses).toHaveLength(4);
    ended();
    ended(); // idempotent
    const third = write(codec, 10);
    codec.decodeWritten(key, third.encoded, 10);
    codec.decodeEvent(third.entry);
    expect(parses).toHaveLength(6);
  });
});

describe('Store: create while watched, the txn answered before the watch event (etcd order)', () => {
  it('parses the created object once for the writer and the watch', async () => {
    const parses: Uint8Array[] = [];
    const entries: KVEntry[] = [];
    let listener: KVWatchListener | undefined;
    let revision = 0;
    const kv = {
      ...copyingBackend(),
      async create(key: string, value: Uint8Array) {
        revision += 1;
        entries.push({ key, value: Uint8Array.from(value), createRevision: revision, modRevision: revision });
        return { succeeded: true, revision };
      },
      watch(_options: unknown, watchListener: KVWatchListener) {
        listener = watchListener;
        return { cancel: () => (listener = undefined) };
      },
    } as unknown as KVBackend;
    const store = new Store({ kv, codec: countingParses(parses) });
    const watch = await store.watch('/registry/configmaps', { recursive: true, resourceVersion: '0', sendInitialEvents: false });
    const created = await store.create('/registry/configmaps/a', object);
    listener?.onEvents(entries.map((entry) => ({ type: 'put' as const, entry })));
    const iterator = watch[Symbol.asyncIterator]();
    const event = await iterator.next();
    expect(event.value).toEqual({ type: 'ADDED', object: created });
    expect((event.value as { object: unknown }).object).not.toBe(created);
    expect(parses).toHaveLength(1);
    watch.stop();
    expect(listener).toBeUndefined();
  });
});

describe('StoreCodec: a codec that encodes verbatim (reads back by copying the written object)', () => {
  const key = '/registry/configmaps/a';
  const verbatim = (parses: Uint8Array[]): Codec => ({ ...countingParses(parses), encodesVerbatim: () => true });
  const source = (): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '3', labels: { l: 'v' } }, data: { x: 'y' } });
  const asParsed = (written: KubeObject, revision: number) => {
    const parsed = JSON.parse(JSON.stringify({ ...written, metadata: { ...written.metadata, resourceVersion: undefined } })) as KubeObject;
    parsed.metadata.resourceVersion = String(revision);
    return parsed;
  };

  it('reads a write back without parsing, as the parse would, and shares nothing the caller may change', () => {
    const parses: Uint8Array[] = [];
    const codec = new StoreCodec(verbatim(parses), identityTransformer, 1 << 20);
    const written = source();
    const encoded = codec.encode(key, written);
    codec.written(key, encoded);
    codec.writeReturned(key, encoded);
    const created = codec.decodeWritten(key, encoded, 7);
    expect(parses).toHaveLength(0);
    expect(created).toStrictEqual(asParsed(written, 7));
    expect(JSON.stringify(created)).toBe(JSON.stringify(asParsed(written, 7)));
    written.metadata.labels!.l = 'changed';
    (written.data as Record<string, string>).x = 'changed';
    expect(created.metadata.labels).toEqual({ l: 'v' });
    expect(created.data).toEqual({ x: 'y' });
    // The caller's object keeps its own resourceVersion.
    expect(written.metadata.resourceVersion).toBe('3');
  });

  it('encodes an object without a resourceVersion (a create) as is, and reads it back without touching it', () => {
    const parses: Uint8Array[] = [];
    const codec = new StoreCodec(verbatim(parses), identityTransformer, 1 << 20);
    const written = source();
    delete written.metadata.resourceVersion;
    const before = JSON.stringify(written);
    const encoded = codec.encode(key, written);
    expect(new TextDecoder().decode(encoded.data)).toBe(before);
    codec.written(key, encoded);
    codec.writeReturned(key, encoded);
    const created = codec.decodeWritten(key, encoded, 9);
    expect(parses).toHaveLength(0);
    expect(created).toStrictEqual(asParsed(written, 9));
    expect(written.metadata).not.toHaveProperty('resourceVersion');
    expect(JSON.stringify(written)).toBe(before);
    written.metadata.labels!.l = 'changed';
    expect(created.metadata.labels).toEqual({ l: 'v' });
  });

  it('a watch event during the write copies the written object; one after it returned parses', () => {
    const parses: Uint8Array[] = [];
    const codec = new StoreCodec(verbatim(parses), identityTransformer, 1 << 20);
    const ended = codec.watchStarted();
    const written = source();
    const encoded = codec.encode(key, written);
    codec.written(key, encoded);
    const entry: KVEntry = { key, value: Uint8Array.from(encoded.stored), createRevision: 7, modRevision: 7 };
    const event = codec.decodeEvent(entry);
    codec.writeReturned(key, encoded);
    const created = codec.decodeWritten(key, encoded, 7);
    expect(parses).toHaveLength(0);
    expect(event).toStrictEqual(asParsed(written, 7));
    expect(created).toStrictEqual(event);
    expect(created.metadata).not.toBe(event.metadata);

    // Returned without being read back (e.g. it failed): the caller may change its object, and an event of
    // those bytes must show what was written, so it parses.
    const again = source();
    const second = codec.encode(key, again);
    codec.written(key, second);
    codec.writeReturned(key, second);
    again.data = { x: 'changed after the write' };
    const late = codec.decodeEvent({ key, value: Uint8Array.from(second.stored), createRevision: 8, modRevision: 8 });
    expect(parses).toHaveLength(1);
    expect(late.data).toEqual({ x: 'y' });
    ended();
  });

  it('parses when the codec converts the object, or it holds what a copy would not make as JSON does', () => {
    const parses: Uint8Array[] = [];
    const converting = new StoreCodec({ ...verbatim(parses), encodesVerbatim: () => false }, identityTransformer, 1 << 20);
    const plain = converting.encode(key, source());
    expect(converting.decodeWritten(key, plain, 7).metadata.resourceVersion).toBe('7');
    expect(parses).toHaveLength(1);
    const codec = new StoreCodec(verbatim(parses), identityTransformer, 1 << 20);
    const dated = { ...source(), data: { when: new Date(0) } } as unknown as KubeObject;
    const encoded = codec.encode(key, dated);
    expect(codec.decodeWritten(key, encoded, 7).data).toEqual({ when: '1970-01-01T00:00:00.000Z' });
    expect(parses).toHaveLength(2);
  });

  it('a handed-over create reads back the written object itself; its watch event gets the one copy, in either order', () => {
    const parses: Uint8Array[] = [];
    const codec = new StoreCodec(verbatim(parses), identityTransformer, 1 << 20);
    const ended = codec.watchStarted();
    const fresh = () => {
      const written = source();
      delete written.metadata.resourceVersion;
      return written;
    };
    const eventOf = (encoded: { stored: Uint8Array }, revision: number): KVEntry => ({ key, value: Uint8Array.from(encoded.stored), createRevision: revision, modRevision: revision });

    // The event first (SQLite's writer thread): it copies the source during the write.
    const first = fresh();
    const one = codec.encode(key, first, 'copy');
    codec.written(key, one);
    const event = codec.decodeEvent(eventOf(one, 7));
    codec.writeReturned(key, one);
    const created = codec.decodeWritten(key, one, 7);
    expect(created).toBe(first);
    expect(created.metadata.resourceVersion).toBe('7');
    expect(event).toStrictEqual(asParsed(first, 7));
    expect(event.metadata).not.toBe(created.metadata);
    expect(codec.rememberedWrites).toBe(0);

    // The writer first (etcd): it keeps a copy for the event, which takes it.
    const second = fresh();
    const two = codec.encode(key, second, 'copy');
    codec.written(key, two);
    codec.writeReturned(key, two);
    const returned = codec.decodeWritten(key, two, 8);
    expect(returned).toBe(second);
    returned.metadata.labels!.l = 'changed by the caller after the write';
    const late = codec.decodeEvent(eventOf(two, 8));
    expect(late.metadata).toStrictEqual({ name: 'a', labels: { l: 'v' }, resourceVersion: '8' });
    expect(parses).toHaveLength(0);
    ended();
  });

  it('a handed-over create whose result the caller only reads is shared with its watch event, in either order', () => {
    const parses: Uint8Array[] = [];
    const codec = new StoreCodec(verbatim(parses), identityTransformer, 1 << 20);
    const ended = codec.watchStarted();
    const eventOf = (encoded: { stored: Uint8Array }, revision: number): KVEntry => ({ key, value: Uint8Array.from(encoded.stored), createRevision: revision, modRevision: revision });
    for (const [revision, eventFirst] of [[7, true], [8, false]] as const) {
      const written = source();
      delete written.metadata.resourceVersion;
      const encoded = codec.encode(key, written, 'share');
      codec.written(key, encoded);
      const early = eventFirst ? codec.decodeEvent(eventOf(encoded, revision)) : undefined;
      codec.writeReturned(key, encoded);
      const created = codec.decodeWritten(key, encoded, revision);
      const event = early ?? codec.decodeEvent(eventOf(encoded, revision));
      expect(created).toBe(written);
      expect(event).toBe(written);
      expect(written.metadata.resourceVersion).toBe(String(revision));
      expect(codec.rememberedWrites).toBe(0);
    }
    expect(parses).toHaveLength(0);
    ended();
  });

  it('Store.create returns what a parse would, without parsing', async () => {
    const parses: Uint8Array[] = [];
    const store = new Store({ kv: copyingBackend(), codec: verbatim(parses) });
    const created = await store.create('/registry/configmaps/a', { ...object, metadata: { name: 'a', labels: { drop: undefined as unknown as string } } });
    expect(created).toStrictEqual({ ...object, metadata: { name: 'a', labels: {}, resourceVersion: '1' } });
    expect(parses).toHaveLength(0);
  });
});
