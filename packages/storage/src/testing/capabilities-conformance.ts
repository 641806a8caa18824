import { describe, expect, it } from 'vitest';
import { isCompactor, isRevisionReader } from '../interfaces.js';
import { revisionOf, testObject, type SuiteContext } from './conformance-helpers.js';

/** The optional capabilities, where the store has them, agree with the backend. */
export function describeCapabilitiesConformance(context: SuiteContext): void {
  describe('capabilities', () => {
    it('reports the current resourceVersion (RevisionReader)', async () => {
      const { store, kv } = context.target;
      const created = await store.create(`${context.prefix()}a`, testObject('a'));
      if (!isRevisionReader(store)) return;
      const current = await store.getCurrentResourceVersion();
      expect(current).toBeGreaterThanOrEqual(revisionOf(created));
      expect(current).toBeLessThanOrEqual(await kv.currentRevision());
    });

    it('compacts and reports the compacted revision (Compactor)', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      const a = await store.create(`${prefix}a`, testObject('a'));
      await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: (current) => ({ ...current, data: { value: '2' } }) });
      if (!isCompactor(store)) return;
      const revision = await kv.currentRevision();
      await store.compact(revision);
      expect(await store.compactRevision()).toBe(revision);
      expect(await kv.compactedRevision()).toBe(revision);
      // The latest state survives compaction; older revisions are gone.
      expect((await store.get(`${prefix}a`))?.data).toEqual({ value: '2' });
      await expect(
        store.getList(prefix, { recursive: true, resourceVersion: a.metadata.resourceVersion as string, resourceVersionMatch: 'Exact' }),
      ).rejects.toMatchObject({ status: { code: 410 } });
    });
  });
}
