import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { EventReader, equalitySelector, revisionOf, testObject, type SuiteContext } from './conformance-helpers.js';

/** Watch start variants: explicit sendInitialEvents, the current revision, TTL and delete details. */
export function describeWatchStartConformance(context: SuiteContext): void {
  describe('watch start', () => {
    it('with sendInitialEvents false and resourceVersion "" sends only later changes', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      await store.create(`${prefix}a`, testObject('a'));
      const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: '', sendInitialEvents: false }));
      try {
        const b = await store.create(`${prefix}b`, testObject('b'));
        const event = await reader.next();
        expect(event.type).toBe('ADDED');
        expect(event.object).toEqual(b);
        await reader.expectQuiet(100);
      } finally {
        reader.stop();
      }
    });

    it('with sendInitialEvents but without allowWatchBookmarks sends no bookmark', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const a = await store.create(`${prefix}a`, testObject('a', { labels: { app: 'web' } }));
      await store.create(`${prefix}b`, testObject('b', { labels: { app: 'db' } }));
      const reader = new EventReader(
        await store.watch(prefix, {
          recursive: true,
          resourceVersion: '0',
          sendInitialEvents: true,
          predicate: { label: equalitySelector({ app: 'web' }) },
        }),
      );
      try {
        const added = await reader.next({ bookmarks: true });
        expect(added.type).toBe('ADDED');
        expect(added.object).toEqual(a);
        const c = await store.create(`${prefix}c`, testObject('c', { labels: { app: 'web' } }));
        const next = await reader.next({ bookmarks: true });
        expect(next.type).toBe('ADDED');
        expect(next.object).toEqual(c);
      } finally {
        reader.stop();
      }
    });

    it('from the current revision waits for the next change', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      await store.create(`${prefix}a`, testObject('a'));
      const current = await kv.currentRevision();
      const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: String(current) }));
      try {
        await reader.expectQuiet(100);
        const updated = await store.guaranteedUpdate(`${prefix}a`, {
          tryUpdate: (object: KubeObject) => ({ ...object, data: { value: 'next' } }),
        });
        const event = await reader.next();
        expect(event.type).toBe('MODIFIED');
        expect(event.object).toEqual(updated);
      } finally {
        reader.stop();
      }
    });

    it('sends DELETED with the deleted object as previousObject', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const a = await store.create(`${prefix}a`, testObject('a'));
      const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: a.metadata.resourceVersion as string }));
      try {
        const deleted = await store.delete(`${prefix}a`);
        const event = await reader.next();
        expect(event.type).toBe('DELETED');
        expect(event.object).toEqual(deleted);
        expect(revisionOf(event.object)).toBeGreaterThan(revisionOf(a));
        if (event.previousObject) expect(event.previousObject).toEqual(a);
      } finally {
        reader.stop();
      }
    });

    it('with omitPrevious still tells creations, updates and deletions apart', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      const start = await kv.currentRevision();
      const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: String(start), omitPrevious: true }));
      try {
        const a = await store.create(`${prefix}a`, testObject('a'));
        const updated = await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: (object: KubeObject) => ({ ...object, data: { value: 'next' } }) });
        const deleted = await store.delete(`${prefix}a`);
        const added = await reader.next();
        expect(added.type).toBe('ADDED');
        expect(added.object).toEqual(a);
        const modified = await reader.next();
        expect(modified.type).toBe('MODIFIED');
        expect(modified.object).toEqual(updated);
        const gone = await reader.next();
        expect(gone.type).toBe('DELETED');
        expect(revisionOf(gone.object)).toBe(revisionOf(deleted));
        // A storage that did not read the last state names the key instead (a watch cache holds the state).
        if (gone.key === undefined) expect(gone.object).toEqual(deleted);
        else expect(gone.key).toBe(`${prefix}a`);
      } finally {
        reader.stop();
      }
    });

    it('counts objects after deletes', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      await store.create(`${prefix}a`, testObject('a'));
      await store.create(`${prefix}b`, testObject('b'));
      await store.delete(`${prefix}a`);
      expect(await store.count(prefix)).toBe(1);
    });
  });
}
