import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { jsonCodec, type Codec } from './codec.js';
import type { KVBackend, KVEntry } from './kv-backend.js';
import { Store } from './store.js';

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
