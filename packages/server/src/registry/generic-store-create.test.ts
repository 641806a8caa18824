import type { KubeObject } from '@kapi/apimachinery';
import { Store, StorageError } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { describe, expect, it } from 'vitest';
import { widget } from '../test-support/test-server.js';
import { widgetDefinition, widgetScheme } from '../test-support/widget-scheme.js';
import { GenericStore, type WriteContext } from './generic-store.js';

/** A widget store on memory storage; with `takenOnce`, the first create is refused as if its name were taken. */
function widgetStore(options: { takenOnce?: boolean } = {}): GenericStore {
  const storage = new Store({ kv: new MemoryBackend() });
  if (options.takenOnce) {
    const create = storage.create.bind(storage);
    let taken = true;
    storage.create = (key, object, createOptions) => {
      if (!taken) return create(key, object, createOptions);
      taken = false;
      return Promise.reject(StorageError.keyExists(key));
    };
  }
  return new GenericStore({ definition: widgetDefinition(), scheme: widgetScheme(), storage, prefix: '/registry/widgets' });
}

const write: WriteContext = { dryRun: false, subresource: '', manager: 'test' };

describe('GenericStore.create and the object it is given', () => {
  it("prepares a copy: the caller's object stays as it was sent", async () => {
    const sent = widget('kept', { size: 2 }) as KubeObject;
    const before = structuredClone(sent);
    const created = await widgetStore().create('default', sent, 'v1', write);
    expect(created.metadata.uid).toBeDefined();
    expect(sent).toEqual(before);
  });

  it('prepares an object handed over in place, with no copy', async () => {
    const sent = widget('given', { size: 2 }) as KubeObject;
    await widgetStore().create('default', sent, 'v1', { ...write, decodeAgain: () => widget('given', { size: 2 }) as KubeObject });
    expect(sent.metadata.uid).toBeDefined();
    expect(sent.metadata.managedFields).toHaveLength(1);
  });

  it('prepares a fresh decode of a handed-over object when its generated name was taken', async () => {
    const fresh = () => ({ ...widget('', { size: 2 }), metadata: { generateName: 'w-' } }) as KubeObject;
    const decoded: KubeObject[] = [];
    const sent = fresh();
    const created = await widgetStore({ takenOnce: true }).create('default', sent, 'v1', {
      ...write,
      decodeAgain: () => {
        decoded.push(fresh());
        return decoded.at(-1) as KubeObject;
      },
    });
    expect(decoded).toHaveLength(1);
    expect(created.metadata.name).toBe(decoded[0]?.metadata.name);
    expect(created.metadata.name).not.toBe(sent.metadata.name);
    expect(created.metadata.name).toMatch(/^w-/);
    expect(created.metadata.managedFields).toHaveLength(1);
  });

  it('names a copy when the object is not handed over, and tries again with a new name', async () => {
    const sent = { ...widget('', { size: 2 }), metadata: { generateName: 'w-' } } as KubeObject;
    const before = structuredClone(sent);
    const created = await widgetStore({ takenOnce: true }).create('default', sent, 'v1', write);
    expect(created.metadata.name).toMatch(/^w-/);
    expect(sent).toEqual(before);
  });
});

describe("GenericStore and the strategy's abandon", () => {
  /** A widget store whose strategy records what it admitted and abandoned (by the size each object asked for). */
  function recordingStore(options: { onAdmit?: (store: GenericStore, size: number) => Promise<void> } = {}) {
    const admitted: number[] = [];
    const abandoned: Array<[string, number]> = [];
    const size = (object: KubeObject) => (object['spec'] as { size: number }).size;
    const store: GenericStore = new GenericStore({
      definition: widgetDefinition({
        strategy: {
          async admit(operation, object) {
            if (operation === 'delete') return;
            admitted.push(size(object));
            await options.onAdmit?.(store, size(object));
          },
          abandon: (operation, object) => void abandoned.push([operation, size(object)]),
        },
      }),
      scheme: widgetScheme(),
      storage: new Store({ kv: new MemoryBackend() }),
      prefix: '/registry/widgets',
    });
    return { store, admitted, abandoned };
  }

  it('abandons a create whose name was taken after admission, and nothing of a stored one', async () => {
    const { store, admitted, abandoned } = recordingStore();
    await store.create('default', widget('one', { size: 1 }) as KubeObject, 'v1', write);
    await expect(store.create('default', widget('one', { size: 2 }) as KubeObject, 'v1', write)).rejects.toMatchObject({ code: 409 });
    expect(admitted).toEqual([1, 2]);
    expect(abandoned).toEqual([['create', 2]]);
  });

  it('abandons each attempt of an update that conflicted but the one stored', async () => {
    let raced = false;
    const { store, abandoned } = recordingStore({
      // The first attempt's admission meets a concurrent write of the same object: storage refuses the
      // attempt and the update is tried again on the new object.
      onAdmit: async (own, size) => {
        if (size !== 3 || raced) return;
        raced = true;
        await own.update('default', 'two', async (current) => ({ ...current, spec: { size: 9 } }), 'v1', write);
      },
    });
    await store.create('default', widget('two', { size: 1 }) as KubeObject, 'v1', write);
    const updated = await store.update('default', 'two', async (current) => ({ ...current, spec: { size: 3 } }), 'v1', write);
    expect((updated.object['spec'] as { size: number }).size).toBe(3);
    expect(abandoned).toEqual([['update', 3]]);
  });

  it('abandons nothing on a dry run', async () => {
    const { store, abandoned } = recordingStore();
    await store.create('default', widget('three', { size: 1 }) as KubeObject, 'v1', write);
    await expect(store.create('default', widget('three', { size: 2 }) as KubeObject, 'v1', { ...write, dryRun: true })).rejects.toMatchObject({ code: 409 });
    expect(abandoned).toEqual([]);
  });
});
