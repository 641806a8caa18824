import { randomBytes } from 'node:crypto';
import type { KubeObject } from '@kapi/apimachinery';
import {
  Store,
  StorageError,
  aesGcmTransformer,
  identityTransformer,
  type KVBackend,
  type KVConditionOptions,
  type KVWriteOptions,
  type KVWriteResult,
  type ValueTransformer,
} from '@kapi/storage';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBackend } from '@kapi/storage-memory';
import { conditionedBackend } from './conditioned-backend.js';
import { VOTING_GROUP } from './storage-version-vote-api.js';
import { StorageVersionVoter, storageVersionSelectionKey } from './storage-version-voter.js';
import { voteObjectsFromStorage } from './vote-objects.js';
import { historyOf, newTestScheme, nextTurn, widget, widgetGroup, widgets } from './voting-test-fixtures.js';

const prefix = '/registry/example.com/widgets/';
const selectionKey = storageVersionSelectionKey('/registry', widgets);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The real memory backend with a network-like delay before each write reaches it. */
function latent(kv: KVBackend): KVBackend {
  return Object.assign(Object.create(kv) as KVBackend, {
    async create(key: string, value: Uint8Array, options?: KVWriteOptions): Promise<KVWriteResult> {
      await nextTurn();
      return kv.create(key, value, options);
    },
    async update(key: string, value: Uint8Array, revision: number, options?: KVWriteOptions): Promise<KVWriteResult> {
      await nextTurn();
      return kv.update(key, value, revision, options);
    },
    async delete(key: string, revision: number, options?: KVConditionOptions): Promise<KVWriteResult> {
      await nextTurn();
      return kv.delete(key, revision, options);
    },
  });
}

/** One apiserver's Widget store in voting mode, wired as the app does. */
function serverStore(kv: KVBackend, voter: StorageVersionVoter, transformer: ValueTransformer = identityTransformer) {
  const scheme = newTestScheme();
  const selection = voter.selectionFor(widgets);
  const codec = scheme.codecFor({ group: widgetGroup, kind: 'Widget', encodingVersion: () => selection.currentSelection() });
  const stats = { conditionFailures: 0, reencoded: 0 };
  const backend = conditionedBackend(latent(kv), {
    ...selection,
    prefix,
    reencode: (stored, key) => {
      stats.reencoded++;
      const plain = transformer.fromStorage(stored, { key }).data;
      return transformer.toStorage(codec.encode(codec.decode(plain)), { key });
    },
    onConditionFailed: () => stats.conditionFailures++,
  });
  return { store: new Store({ kv: backend, codec, transformer }), stats };
}

const voters: StorageVersionVoter[] = [];
afterEach(() => {
  for (const voter of voters.splice(0)) voter.stop();
});

function newVoter(kv: MemoryBackend, id: string, preferredVersion: string): StorageVersionVoter {
  const scheme = newTestScheme();
  const votes = voteObjectsFromStorage(
    new Store({ kv, codec: scheme.codecFor({ group: VOTING_GROUP, kind: 'StorageVersion', encodingVersion: 'v1alpha1' }) }),
  );
  const voter = new StorageVersionVoter({
    apiServerID: id,
    votes,
    liveServerIDs: async () => new Set(['a', 'b', 'c']),
    kv,
    keyPrefix: '/registry',
    retryDelayMs: 1,
  });
  voter.register({ groupResource: widgets, preferredVersion, decodableVersions: ['v1', 'v2'] });
  voters.push(voter);
  return voter;
}

function apiVersionOf(bytes: Uint8Array): string {
  return (JSON.parse(decoder.decode(bytes)) as KubeObject).apiVersion ?? '';
}

describe('conditionedBackend', () => {
  it('re-encodes writes racing a switch: no value is stored in the old version after the switch', async () => {
    const kv = new MemoryBackend({ progressNotifyIntervalMs: 50 });
    await Promise.all(['a', 'b', 'c'].map((id) => newVoter(kv, id, 'v1').vote(widgets)));
    // Release x+2 on a and b: they keep writing v1. a follows the selection key by watch, b only refreshes
    // when a write fails its condition.
    const a = newVoter(kv, 'a', 'v2');
    const b = newVoter(kv, 'b', 'v2');
    await a.vote(widgets);
    await b.vote(widgets);
    await a.start();
    const servers = [serverStore(kv, a), serverStore(kv, b)];

    let written = 0;
    const workers = Array.from({ length: 8 }, (_, worker) =>
      (async () => {
        const server = servers[worker % 2]!;
        for (let index = 0; index < 15; index++) {
          const key = `${prefix}w-${worker}-${index}`;
          await server.store.create(key, widget(`w-${worker}-${index}`, 'red'));
          written++;
          await server.store.guaranteedUpdate(key, { tryUpdate: (current) => ({ ...current, spec: { color: `blue-${index}` } }) });
          if (index % 3 === 0) await server.store.delete(key);
          written++;
        }
      })(),
    );
    // c is upgraded last while the writes are in flight: it switches the selection to v2.
    const flip = (async () => {
      while (written < 60) await nextTurn();
      expect(await newVoter(kv, 'c', 'v2').vote(widgets)).toBe('v2');
    })();
    await Promise.all([...workers, flip]);

    let inForce = '';
    const stored: string[] = [];
    for (const event of await historyOf(kv, '/registry/')) {
      if (event.entry.key === selectionKey) {
        inForce = decoder.decode(event.entry.value);
      } else if (event.entry.key.startsWith(prefix) && event.type === 'put') {
        const apiVersion = apiVersionOf(event.entry.value);
        stored.push(apiVersion);
        expect(apiVersion, `revision ${event.entry.modRevision}`).toBe(`${widgetGroup}/${inForce}`);
      }
    }
    expect(inForce).toBe('v2');
    expect(stored).toHaveLength(8 * 15 * 2);
    expect(stored).toContain(`${widgetGroup}/v1`);
    expect(stored).toContain(`${widgetGroup}/v2`);
    // The race did happen (b at least wrote with the old selection once) and was resolved by re-encoding.
    const failures = servers.reduce((sum, server) => sum + server.stats.conditionFailures, 0);
    expect(failures).toBeGreaterThan(0);
    expect(servers[1]!.stats.reencoded).toBeGreaterThan(0);
    expect(a.selectedVersion(widgets)).toBe('v2');
    expect(b.selectedVersion(widgets)).toBe('v2');
    // Everything reads back through either server.
    const listed = await servers[0]!.store.getList(prefix, { recursive: true });
    expect(listed.items.every((item) => (item.spec as { color: string }).color.startsWith('blue-'))).toBe(true);
  });

  it('re-encodes through the transformer, with the storage key as its context', async () => {
    const kv = new MemoryBackend();
    const voter = newVoter(kv, 'a', 'v1');
    await voter.vote(widgets);
    const transformer = aesGcmTransformer({ keys: [{ name: 'k', secret: randomBytes(32) }] });
    const { store, stats } = serverStore(kv, voter, transformer);
    // Another apiserver switches the selection behind this one's back.
    const entry = (await kv.get(selectionKey)).entry!;
    await kv.update(selectionKey, encoder.encode('v2'), entry.modRevision);

    const created = await store.create(`${prefix}w`, widget('w', 'red'));
    expect(created.spec).toEqual({ color: 'red' });
    expect(stats).toEqual({ conditionFailures: 1, reencoded: 1 });
    const raw = (await kv.get(`${prefix}w`)).entry!;
    const plain = transformer.fromStorage(raw.value, { key: `${prefix}w` }).data;
    expect(JSON.parse(decoder.decode(plain))).toMatchObject({ apiVersion: `${widgetGroup}/v2`, spec: { colour: 'red' } });
    expect(voter.selectedVersion(widgets)).toBe('v2');
    expect(await store.get(`${prefix}w`)).toMatchObject({ apiVersion: `${widgetGroup}/v1`, spec: { color: 'red' } });
  });

  it('conditions deletes, passes other keys through and keeps conflicts as conflicts', async () => {
    const kv = new MemoryBackend();
    await kv.create(selectionKey, encoder.encode('v1'));
    let known = 'v1';
    const refreshed: string[] = [];
    const backend = conditionedBackend(kv, {
      selectionKey,
      prefix,
      currentSelection: () => known,
      refreshSelection: async () => {
        known = decoder.decode((await kv.get(selectionKey)).entry!.value);
        refreshed.push(known);
        return known;
      },
      reencode: (stored) => stored,
    });
    const created = await backend.create(`${prefix}x`, encoder.encode('{}'));
    expect(created.succeeded).toBe(true);
    const conflict = await backend.create(`${prefix}x`, encoder.encode('{}'));
    expect(conflict).toMatchObject({ succeeded: false, reason: 'conflict' });

    const entry = (await kv.get(selectionKey)).entry!;
    await kv.update(selectionKey, encoder.encode('v2'), entry.modRevision);
    expect((await backend.create('/registry/other/y', encoder.encode('{}'))).succeeded).toBe(true);
    expect(refreshed).toEqual([]);
    const deleted = await backend.delete(`${prefix}x`, created.succeeded ? created.revision : 0);
    expect(deleted.succeeded).toBe(true);
    expect(refreshed).toEqual(['v2']);
    await expect(
      backend.create(`${prefix}z`, encoder.encode('{}'), { condition: { key: selectionKey, value: 'v2' } }),
    ).rejects.toThrow('cannot carry its own condition');
    expect(backend.name).toBe('memory');
    expect(typeof backend.requestProgress).toBe('function');
  });

  it('fails a write with the refresh error, and with Unreachable when the selection never matches', async () => {
    const kv = new MemoryBackend();
    const voter = newVoter(kv, 'a', 'v1');
    const { store } = serverStore(kv, voter);
    // No selection key yet: the refresh explains.
    await expect(store.create(`${prefix}w`, widget('w', 'red'))).rejects.toThrow(
      'no storage version has been selected for widgets.example.com yet',
    );

    await kv.create(selectionKey, encoder.encode('v3'));
    await expect(store.create(`${prefix}w`, widget('w', 'red'))).rejects.toThrow(
      'storage version "v3" selected for widgets.example.com is not decodable by this apiserver (decodable versions: v1, v2)',
    );
    // Later writes are refused before encoding, not written in v3.
    await expect(store.create(`${prefix}w`, widget('w', 'red'))).rejects.toThrow('is not decodable by this apiserver');
    expect((await kv.get(`${prefix}w`)).entry).toBeUndefined();

    const stuck = conditionedBackend(kv, {
      selectionKey,
      prefix,
      currentSelection: () => 'v1',
      refreshSelection: async () => 'v1',
      reencode: (stored) => stored,
      maxAttempts: 3,
    });
    const failure = await stuck.create(`${prefix}w`, encoder.encode('{}')).catch((error: unknown) => error);
    expect(StorageError.isInstance(failure) && failure.code).toBe('Unreachable');
    expect((await kv.get(`${prefix}w`)).entry).toBeUndefined();
  });
});
