import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject, type Status } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { isProgressRequester } from '../interfaces.js';
import {
  EventReader,
  describeEvents,
  equalitySelector,
  nameOf,
  revisionOf,
  sleep,
  testObject,
  type SuiteContext,
} from './conformance-helpers.js';

const update = (value: string) => (current: KubeObject) => ({ ...current, data: { value } });

/** watch: start revisions, ordering, selector transitions, compaction, progress, initial events. */
export function describeWatchConformance(context: SuiteContext): void {
  describe('watch', () => {
    for (const resourceVersion of ['0', '']) {
      it(`from resourceVersion ${JSON.stringify(resourceVersion)} sends the current state as ADDED, then changes`, async () => {
        const { store } = context.target;
        const prefix = context.prefix();
        const a = await store.create(`${prefix}a`, testObject('a'));
        const b = await store.create(`${prefix}b`, testObject('b'));
        const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion }));
        try {
          const initial = await reader.take(2);
          expect(initial.map((event) => event.type)).toEqual(['ADDED', 'ADDED']);
          expect(initial.map((event) => event.object).sort((x, y) => (nameOf(x) ?? '').localeCompare(nameOf(y) ?? ''))).toEqual([a, b]);
          const updated = await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: update('changed') });
          const modified = await reader.next();
          expect(modified.type).toBe('MODIFIED');
          expect(modified.object).toEqual(updated);
          expect(modified.previousObject).toEqual(a);
          const deleted = await store.delete(`${prefix}b`);
          const gone = await reader.next();
          expect(gone.type).toBe('DELETED');
          expect(gone.object).toEqual(deleted);
          await reader.expectQuiet(100);
        } finally {
          reader.stop();
        }
      });
    }

    it('from resourceVersion N sends only the changes after N', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const a = await store.create(`${prefix}a`, testObject('a'));
      const b = await store.create(`${prefix}b`, testObject('b'));
      const a2 = await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: update('2') });
      const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: a.metadata.resourceVersion as string }));
      try {
        const events = await reader.take(2);
        expect(events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED']);
        expect(events[0]?.object).toEqual(b);
        expect(events[1]?.object).toEqual(a2);
        expect(events[1]?.previousObject).toEqual(a);
        await reader.expectQuiet(100);
      } finally {
        reader.stop();
      }
    });

    it('delivers every change in revision order with previous objects', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const start = await store.create(`${context.prefix()}marker`, testObject('marker'));
      const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: start.metadata.resourceVersion as string }));
      try {
        const written: KubeObject[] = [await store.create(`${prefix}x`, testObject('x'))];
        written.push(await store.create(`${prefix}y`, testObject('y')));
        for (let round = 0; round < 3; round++) {
          written.push(await store.guaranteedUpdate(`${prefix}x`, { tryUpdate: update(`x${round}`) }));
          written.push(await store.guaranteedUpdate(`${prefix}y`, { tryUpdate: update(`y${round}`) }));
        }
        written.push(await store.delete(`${prefix}x`));
        const events = await reader.take(written.length);
        expect(events.map((event) => event.type)).toEqual(['ADDED', 'ADDED', ...Array(6).fill('MODIFIED'), 'DELETED']);
        expect(events.map((event) => event.object)).toEqual(written);
        const revisions = events.map((event) => revisionOf(event.object));
        expect([...revisions].sort((left, right) => left - right)).toEqual(revisions);
        expect(events[2]?.previousObject).toEqual(written[0]);
        expect(events[4]?.previousObject).toEqual(written[2]);
        expect(events[8]?.previousObject).toEqual(written[6]);
      } finally {
        reader.stop();
      }
    });

    it('watches a single key when not recursive', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const start = await store.create(`${prefix}a`, testObject('a'));
      const reader = new EventReader(await store.watch(`${prefix}a`, { resourceVersion: start.metadata.resourceVersion as string }));
      try {
        await store.create(`${prefix}ab`, testObject('ab'));
        await store.create(`${prefix}a/child`, testObject('child'));
        const updated = await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: update('2') });
        const event = await reader.next();
        expect(event.type).toBe('MODIFIED');
        expect(event.object).toEqual(updated);
        await reader.expectQuiet(100);
      } finally {
        reader.stop();
      }
    });

    it('turns selector transitions into ADDED and DELETED events', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const key = `${prefix}a`;
      const reader = new EventReader(
        await store.watch(prefix, { recursive: true, resourceVersion: '0', predicate: { label: equalitySelector({ app: 'web' }) } }),
      );
      const relabel = (labels: Record<string, string>) => (current: KubeObject) => ({
        ...current,
        metadata: { ...current.metadata, labels },
      });
      try {
        await store.create(key, testObject('a', { labels: { app: 'db' } }));
        const entered = await store.guaranteedUpdate(key, { tryUpdate: relabel({ app: 'web' }) });
        const added = await reader.next();
        expect(added.type).toBe('ADDED');
        expect(added.object).toEqual(entered);
        const stayed = await store.guaranteedUpdate(key, { tryUpdate: relabel({ app: 'web', tier: 'front' }) });
        const modified = await reader.next();
        expect(modified.type).toBe('MODIFIED');
        expect(modified.object).toEqual(stayed);
        expect(modified.previousObject).toEqual(entered);
        const left = await store.guaranteedUpdate(key, { tryUpdate: relabel({ app: 'db' }) });
        const deleted = await reader.next();
        expect(deleted.type).toBe('DELETED');
        expect(nameOf(deleted.object)).toBe('a');
        expect(deleted.object.metadata?.resourceVersion).toBe(left.metadata.resourceVersion);
        await store.delete(key);
        const other = await store.create(`${prefix}b`, testObject('b', { labels: { app: 'web' } }));
        const next = await reader.next();
        expect(next.type).toBe('ADDED');
        expect(next.object).toEqual(other);
        const removed = await store.delete(`${prefix}b`);
        const last = await reader.next();
        expect(last.type).toBe('DELETED');
        expect(last.object).toEqual(removed);
      } finally {
        reader.stop();
      }
    });

    it('answers a watch from a compacted revision with one 410 ERROR event, then ends', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      const old = await store.create(`${prefix}a`, testObject('a'));
      await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: update('2') });
      await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: update('3') });
      await kv.compact(await kv.currentRevision());
      const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: old.metadata.resourceVersion as string }));
      try {
        const event = await reader.next();
        expect(event.type).toBe('ERROR');
        const status = event.object as Status;
        expect(status.code).toBe(410);
        expect(status.reason).toBe('Expired');
        expect(status.message).toContain('too old resource version');
        await reader.expectEnd();
      } finally {
        reader.stop();
      }
    });

    it('sends progress BOOKMARKs that advance while only another prefix is written', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const other = context.prefix();
      const start = await store.create(`${prefix}a`, testObject('a'));
      const reader = new EventReader(
        await store.watch(prefix, { recursive: true, resourceVersion: start.metadata.resourceVersion as string, progressNotify: true }),
      );
      const writing = { stop: false };
      let last = 0;
      const writer = (async () => {
        for (let index = 0; !writing.stop; index++) {
          const written = await store.create(`${other}o${index}`, testObject(`o${index}`));
          last = revisionOf(written);
          await sleep(50);
        }
      })();
      try {
        const seen: number[] = [];
        const deadline = Date.now() + 6000;
        while (Date.now() < deadline) {
          const event = await reader.next({ bookmarks: true, timeoutMs: 3000 });
          expect(event.type).toBe('BOOKMARK');
          const revision = revisionOf(event.object);
          seen.push(revision);
          if (seen.length >= 2 && revision > revisionOf(start) && revision > (seen[0] as number)) break;
        }
        expect(seen.length).toBeGreaterThanOrEqual(2);
        for (let index = 1; index < seen.length; index++) expect(seen[index]).toBeGreaterThanOrEqual(seen[index - 1] as number);
        expect(seen[seen.length - 1]).toBeGreaterThan(seen[0] as number);
        expect(seen[seen.length - 1]).toBeLessThanOrEqual(Math.max(last, await context.target.kv.currentRevision()));
      } finally {
        writing.stop = true;
        await writer;
        reader.stop();
      }
    });

    it('answers requestWatchProgress with a BOOKMARK at the current revision', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      const start = await store.create(`${prefix}a`, testObject('a'));
      const reader = new EventReader(
        await store.watch(prefix, { recursive: true, resourceVersion: start.metadata.resourceVersion as string, progressNotify: true }),
      );
      try {
        const current = await kv.currentRevision();
        if (isProgressRequester(store)) await store.requestWatchProgress();
        for (;;) {
          const event = await reader.next({ bookmarks: true, timeoutMs: 3000 });
          expect(event.type).toBe('BOOKMARK');
          if (revisionOf(event.object) >= current) break;
        }
      } finally {
        reader.stop();
      }
    });

    it('gives 10 concurrent watchers identical ordered streams', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const start = await store.create(`${context.prefix()}start`, testObject('start'));
      const readers = await Promise.all(
        Array.from({ length: 10 }, async () =>
          new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: start.metadata.resourceVersion as string })),
        ),
      );
      try {
        const writes = 30;
        await Promise.all(
          Array.from({ length: 3 }, async (_, writer) => {
            for (let index = 0; index < writes / 3; index++) {
              const key = `${prefix}w${writer}`;
              if (index === 0) await store.create(key, testObject(`w${writer}`));
              else if (index === writes / 3 - 1) await store.delete(key);
              else await store.guaranteedUpdate(key, { tryUpdate: update(String(index)) });
            }
          }),
        );
        const streams = await Promise.all(readers.map(async (reader) => describeEvents(await reader.take(writes))));
        const revisions = (streams[0] as string[]).map((line) => Number(line.split(' ')[2]));
        expect([...revisions].sort((left, right) => left - right)).toEqual(revisions);
        for (const stream of streams) expect(stream).toEqual(streams[0]);
      } finally {
        for (const reader of readers) reader.stop();
      }
    });

    it('with sendInitialEvents ends the initial state with an annotated BOOKMARK', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const a = await store.create(`${prefix}a`, testObject('a', { labels: { app: 'web' } }));
      await store.create(`${prefix}b`, testObject('b', { labels: { app: 'db' } }));
      const reader = new EventReader(
        await store.watch(prefix, {
          recursive: true,
          sendInitialEvents: true,
          resourceVersionMatch: 'NotOlderThan',
          predicate: { allowWatchBookmarks: true, label: equalitySelector({ app: 'web' }) },
        }),
      );
      try {
        const added = await reader.next({ bookmarks: true });
        expect(added.type).toBe('ADDED');
        expect(added.object).toEqual(a);
        const bookmark = await reader.next({ bookmarks: true });
        expect(bookmark.type).toBe('BOOKMARK');
        expect((bookmark.object as KubeObject).metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION]).toBe('true');
        expect(revisionOf(bookmark.object)).toBeGreaterThanOrEqual(revisionOf(a));
        const c = await store.create(`${prefix}c`, testObject('c', { labels: { app: 'web' } }));
        const next = await reader.next();
        expect(next.type).toBe('ADDED');
        expect(next.object).toEqual(c);
        expect(revisionOf(c)).toBeGreaterThan(revisionOf(bookmark.object));
      } finally {
        reader.stop();
      }
    });

    it('ends when stopped or when its signal aborts', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      const stopped = await store.watch(prefix, { recursive: true });
      stopped.stop();
      await stopped.done;
      await new EventReader(stopped).expectEnd(1000);
      const abort = new AbortController();
      const aborted = await store.watch(prefix, { recursive: true, signal: abort.signal });
      abort.abort();
      await aborted.done;
      await new EventReader(aborted).expectEnd(1000);
    });

    it('sends a 500 ERROR event naming the key for an undecodable value', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      const start = await store.create(`${prefix}a`, testObject('a'));
      const reader = new EventReader(await store.watch(prefix, { recursive: true, resourceVersion: start.metadata.resourceVersion as string }));
      try {
        await kv.create(`${prefix}broken`, Buffer.from('{not json'));
        const event = await reader.next();
        expect(event.type).toBe('ERROR');
        const status = event.object as Status;
        expect(status.code).toBe(500);
        expect(status.message).toContain(`${prefix}broken`);
      } finally {
        reader.stop();
      }
    });
  });
}
