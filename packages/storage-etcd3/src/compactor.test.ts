import { RevisionCompactedError } from '@kapi/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactOnce, startCompactor, type CompactorState } from './compactor.js';
import { COMPACT_REVISION_KEY, Etcd3Backend } from './etcd3-backend.js';
import { startEtcd, type EtcdInstance } from './testing/index.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

let etcd: EtcdInstance;
let first: Etcd3Backend;
let second: Etcd3Backend;

beforeAll(async () => {
  etcd = await startEtcd();
  first = await Etcd3Backend.connect({ endpoints: [etcd.endpoint] });
  second = await Etcd3Backend.connect({ endpoints: [etcd.endpoint] });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await etcd?.stop();
});

async function write(backend: Etcd3Backend, key: string): Promise<number> {
  const current = (await backend.get(key)).entry;
  const result = current
    ? await backend.update(key, text(String(Date.now())), current.modRevision)
    : await backend.create(key, text('0'));
  return result.revision;
}

async function keyVersion(backend: Etcd3Backend): Promise<number> {
  const response = await backend.client.kv.range({ key: Buffer.from(COMPACT_REVISION_KEY) });
  return Number(response.kvs[0]?.version ?? 0);
}

describe('compactor', () => {
  it('lets only the compactor holding the compact_rev_key version compact, to the revision seen one interval earlier', async () => {
    const a: CompactorState = { compactTime: 0, revision: 0 };
    const b: CompactorState = { compactTime: 0, revision: 0 };
    // Interval 1: a wins the key but has nothing to compact yet; b loses and adopts the version.
    expect(await compactOnce(first, a)).toBeUndefined();
    expect(await compactOnce(second, b)).toBeUndefined();
    expect(a.compactTime).toBe(1);
    expect(b.compactTime).toBe(1);
    const seenByB = b.revision;
    const history = await write(first, '/compactor/a');
    await write(first, '/compactor/a');

    // Interval 2: b goes first this time and wins; a loses, so only one compaction happens.
    const compactedByB = await compactOnce(second, b);
    expect(compactedByB).toBe(seenByB);
    expect(await compactOnce(first, a)).toBeUndefined();
    expect(a.compactTime).toBe(2);
    expect(await keyVersion(first)).toBe(2);
    expect(await first.compactedRevision()).toBe(compactedByB);
    expect(compactedByB).toBeLessThan(history);
    await expect(first.get('/compactor/a', { revision: compactedByB! - 1 })).rejects.toBeInstanceOf(
      RevisionCompactedError,
    );
    // History after the compacted revision is still there.
    await expect(first.get('/compactor/a', { revision: history })).resolves.toMatchObject({
      revision: history,
    });
  });

  it('tolerates a revision compacted by someone else', async () => {
    const state: CompactorState = { compactTime: await keyVersion(first), revision: 0 };
    await compactOnce(first, state); // takes the key, remembers the current revision
    const remembered = state.revision;
    await write(first, '/compactor/b');
    const newer = await write(first, '/compactor/b');
    await second.compact(newer); // compacted past our target behind our back
    await expect(compactOnce(first, state)).resolves.toBe(remembered);
  });

  it('skips a target newer than etcd has (history restored from an older snapshot)', async () => {
    const version = await keyVersion(first);
    const state: CompactorState = { compactTime: version, revision: (await first.currentRevision()) + 1000 };
    await expect(compactOnce(first, state)).resolves.toBeUndefined();
    expect(state.compactTime).toBe(version + 1);
    expect(state.revision).toBe(await first.currentRevision());
  });

  it('runs periodically; two compactors on one etcd compact at most once per interval together', async () => {
    const intervalMs = 150;
    const compactions: { by: string; revision: number }[] = [];
    const errors: unknown[] = [];
    const versionBefore = await keyVersion(first);
    const started = Date.now();
    const compactors = [
      startCompactor({
        backend: first,
        intervalMs,
        onCompact: (revision) => compactions.push({ by: 'first', revision }),
        onError: (error) => errors.push(error),
      }),
      startCompactor({
        backend: second,
        intervalMs,
        onCompact: (revision) => compactions.push({ by: 'second', revision }),
        onError: (error) => errors.push(error),
      }),
    ];
    let written = 0;
    while (compactions.length < 3) {
      await write(first, '/compactor/c');
      written++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (Date.now() - started > 10_000) break;
    }
    await Promise.all(compactors.map((compactor) => compactor.stop()));
    const elapsedIntervals = Math.ceil((Date.now() - started) / intervalMs);
    expect(errors).toEqual([]);
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    const revisions = compactions.map((compaction) => compaction.revision);
    expect([...revisions].sort((left, right) => left - right)).toEqual(revisions);
    expect(new Set(revisions).size).toBe(revisions.length);
    // Every successful compare-and-swap bumps the key's version once: at most one per interval overall
    // (two uncoordinated compactors would bump it twice per interval).
    expect((await keyVersion(first)) - versionBefore).toBeLessThanOrEqual(elapsedIntervals + 1);
    expect(await first.compactedRevision()).toBeGreaterThanOrEqual(revisions[revisions.length - 1]!);
    expect(written).toBeGreaterThan(0);
  });
});
