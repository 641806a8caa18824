import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { decodeContinueToken } from '../continue-token.js';
import type { Interface, ListOptions } from '../interfaces.js';
import { equalitySelector, expectStatusError, revisionOf, testObject, type SuiteContext } from './conformance-helpers.js';

const inconsistentContinue =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

const names = (items: KubeObject[]): Array<string | undefined> => items.map((item) => item.metadata.name);

async function createAll(store: Interface, prefix: string, count: number, labels?: (index: number) => Record<string, string>): Promise<KubeObject[]> {
  const created: KubeObject[] = [];
  for (let index = 0; index < count; index++) {
    const name = `item-${String(index).padStart(2, '0')}`;
    created.push(await store.create(`${prefix}${name}`, testObject(name, labels ? { labels: labels(index) } : {})));
  }
  return created;
}

/** Pages through a list, returning every page. */
async function listAllPages(store: Interface, prefix: string, options: ListOptions, limit: number) {
  const pages = [];
  let token: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await store.getList(prefix, {
      ...options,
      recursive: true,
      predicate: { ...options.predicate, limit, ...(token ? { continue: token } : {}) },
    });
    pages.push(page);
    token = page.continue;
    if (!token) return pages;
  }
  throw new Error('too many pages');
}

/** getList: prefixes, selectors, paging, resourceVersion semantics and continue tokens. */
export function describeListConformance(context: SuiteContext): void {
  describe('getList', () => {
    it('lists the objects below a prefix in key order, with the read revision', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      await store.create(`${prefix}pods/b`, testObject('b'));
      await store.create(`${prefix}pods/a`, testObject('a'));
      await store.create(`${prefix}pods/ns/c`, testObject('c'));
      const sibling = await store.create(`${prefix}podsx/d`, testObject('d'));
      for (const key of [`${prefix}pods`, `${prefix}pods/`]) {
        const list = await store.getList(key, { recursive: true });
        expect(names(list.items)).toEqual(['a', 'b', 'c']);
        expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(revisionOf(sibling));
        expect(Number(list.resourceVersion)).toBeLessThanOrEqual(await kv.currentRevision());
        expect(list.continue).toBeUndefined();
        expect(list.remainingItemCount).toBeUndefined();
        for (const item of list.items) expect(Number(item.metadata.resourceVersion)).toBeGreaterThan(0);
      }
      const single = await store.getList(`${prefix}pods/a`);
      expect(names(single.items)).toEqual(['a']);
      expect((await store.getList(`${prefix}pods/zz`)).items).toEqual([]);
      expect((await store.getList(`${prefix}nothing`, { recursive: true })).items).toEqual([]);
    });

    it('filters with label and field selectors', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      await store.create(`${prefix}a`, testObject('a', { labels: { app: 'web', tier: 'front' } }));
      await store.create(`${prefix}b`, testObject('b', { labels: { app: 'web', tier: 'back' } }));
      await store.create(`${prefix}c`, testObject('c', { labels: { app: 'db' } }));
      const web = await store.getList(prefix, { recursive: true, predicate: { label: equalitySelector({ app: 'web' }) } });
      expect(names(web.items)).toEqual(['a', 'b']);
      const back = await store.getList(prefix, {
        recursive: true,
        predicate: { label: equalitySelector({ app: 'web' }), field: equalitySelector({ 'metadata.name': 'b' }) },
      });
      expect(names(back.items)).toEqual(['b']);
      const byName = await store.getList(prefix, { recursive: true, predicate: { field: equalitySelector({ 'metadata.name': 'c' }) } });
      expect(names(byName.items)).toEqual(['c']);
      const none = await store.getList(prefix, { recursive: true, predicate: { label: equalitySelector({ app: 'none' }) } });
      expect(none.items).toEqual([]);
    });

    it('pages with limit and continue over a consistent snapshot, with remainingItemCount', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      await createAll(store, prefix, 5);
      const first = await store.getList(prefix, { recursive: true, predicate: { limit: 2 } });
      expect(names(first.items)).toEqual(['item-00', 'item-01']);
      expect(first.remainingItemCount).toBe(3);
      expect(first.continue).toBeTruthy();
      const token = decodeContinueToken(first.continue as string, prefix);
      expect(token).toEqual({ key: `${prefix}item-01\u0000`, resourceVersion: Number(first.resourceVersion) });
      // Writes after the first page do not show up in later pages.
      await store.create(`${prefix}item-99`, testObject('item-99'));
      await store.guaranteedUpdate(`${prefix}item-03`, { tryUpdate: (current) => ({ ...current, data: { value: 'changed' } }) });
      await store.delete(`${prefix}item-04`);
      const second = await store.getList(prefix, { recursive: true, predicate: { limit: 2, continue: first.continue as string } });
      expect(names(second.items)).toEqual(['item-02', 'item-03']);
      expect(second.items[1]?.data).toEqual({ value: 'item-03' });
      expect(second.remainingItemCount).toBe(1);
      expect(second.resourceVersion).toBe(first.resourceVersion);
      const third = await store.getList(prefix, { recursive: true, predicate: { limit: 2, continue: second.continue as string } });
      expect(names(third.items)).toEqual(['item-04']);
      expect(third.continue).toBeUndefined();
      expect(third.remainingItemCount).toBeUndefined();
      expect(third.resourceVersion).toBe(first.resourceVersion);
      // A continue token with resourceVersion "0" is accepted.
      const again = await store.getList(prefix, {
        recursive: true,
        resourceVersion: '0',
        predicate: { limit: 10, continue: first.continue as string },
      });
      expect(names(again.items)).toEqual(['item-02', 'item-03', 'item-04']);
    });

    it('keeps reading pages until limit objects match the selectors', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      await createAll(store, prefix, 12, (index) => ({ even: index % 2 === 0 ? 'yes' : 'no', third: index % 3 === 0 ? 'yes' : 'no' }));
      const even = await store.getList(prefix, { recursive: true, predicate: { limit: 2, label: equalitySelector({ even: 'yes' }) } });
      expect(names(even.items)).toEqual(['item-00', 'item-02']);
      expect(even.remainingItemCount).toBeUndefined();
      expect(decodeContinueToken(even.continue as string, prefix).key).toBe(`${prefix}item-02\u0000`);
      const pages = await listAllPages(store, prefix, { predicate: { label: equalitySelector({ third: 'yes' }) } }, 3);
      expect(pages.flatMap((page) => names(page.items))).toEqual(['item-00', 'item-03', 'item-06', 'item-09']);
      expect(pages[0]?.items).toHaveLength(3);
      for (const page of pages) expect(page.remainingItemCount).toBeUndefined();
      const all = await listAllPages(store, prefix, {}, 5);
      expect(all.map((page) => page.items.length)).toEqual([5, 5, 2]);
    });

    it('reads an old revision with resourceVersionMatch Exact and the latest with NotOlderThan', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      const a = await store.create(`${prefix}a`, testObject('a'));
      const b = await store.create(`${prefix}b`, testObject('b'));
      const old = b.metadata.resourceVersion as string;
      await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: (current) => ({ ...current, data: { value: 'new' } }) });
      await store.delete(`${prefix}b`);
      await store.create(`${prefix}c`, testObject('c'));

      const exact = await store.getList(prefix, { recursive: true, resourceVersion: old, resourceVersionMatch: 'Exact' });
      expect(exact.resourceVersion).toBe(old);
      expect(exact.items).toEqual([a, b]);
      const legacyPaged = await store.getList(prefix, { recursive: true, resourceVersion: old, predicate: { limit: 1 } });
      expect(legacyPaged.items).toEqual([a]);
      expect(legacyPaged.resourceVersion).toBe(old);

      const current = await kv.currentRevision();
      for (const options of [
        { resourceVersion: old, resourceVersionMatch: 'NotOlderThan' as const },
        { resourceVersion: old },
        { resourceVersion: '0' },
        { resourceVersion: '' },
      ]) {
        const latest = await store.getList(prefix, { recursive: true, ...options });
        expect(names(latest.items)).toEqual(['a', 'c']);
        expect(latest.items[0]?.data).toEqual({ value: 'new' });
        expect(Number(latest.resourceVersion)).toBeGreaterThanOrEqual(current);
      }
      const tooLarge = String(current + 1000);
      for (const resourceVersionMatch of ['NotOlderThan', 'Exact', ''] as const) {
        const error = await expectStatusError(store.getList(prefix, { recursive: true, resourceVersion: tooLarge, resourceVersionMatch }), 504);
        expect(error.status.details?.causes?.[0]?.reason).toBe('ResourceVersionTooLarge');
      }
    });

    it('answers 410 for an Exact list at a compacted revision', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      const a = await store.create(`${prefix}a`, testObject('a'));
      await store.guaranteedUpdate(`${prefix}a`, { tryUpdate: (current) => ({ ...current, data: { value: 'new' } }) });
      await store.create(`${prefix}b`, testObject('b'));
      await kv.compact(await kv.currentRevision());
      const error = await expectStatusError(
        store.getList(prefix, { recursive: true, resourceVersion: a.metadata.resourceVersion as string, resourceVersionMatch: 'Exact' }),
        410,
      );
      expect(error.reason).toBe('Expired');
      expect(error.message).toBe('The resourceVersion for the provided list is too old.');
      expect(names((await store.getList(prefix, { recursive: true })).items)).toEqual(['a', 'b']);
    });

    it('answers 410 with an inconsistent continue token when the token revision was compacted', async () => {
      const { store, kv } = context.target;
      const prefix = context.prefix();
      await createAll(store, prefix, 4);
      const first = await store.getList(prefix, { recursive: true, predicate: { limit: 2 } });
      await store.guaranteedUpdate(`${prefix}item-03`, { tryUpdate: (current) => ({ ...current, data: { value: 'changed' } }) });
      await store.create(`${prefix}item-04`, testObject('item-04'));
      await kv.compact(await kv.currentRevision());
      const error = await expectStatusError(
        store.getList(prefix, { recursive: true, predicate: { limit: 2, continue: first.continue as string } }),
        410,
      );
      expect(error.reason).toBe('Expired');
      expect(error.message).toBe(inconsistentContinue);
      const token = error.status.metadata.continue;
      expect(token).toBeTruthy();
      expect(decodeContinueToken(token as string, prefix)).toEqual({ key: `${prefix}item-01\u0000`, resourceVersion: -1 });
      const rest = await store.getList(prefix, { recursive: true, predicate: { limit: 10, continue: token as string } });
      expect(names(rest.items)).toEqual(['item-02', 'item-03', 'item-04']);
      expect(rest.items[1]?.data).toEqual({ value: 'changed' });
      expect(Number(rest.resourceVersion)).toBeGreaterThanOrEqual(await kv.compactedRevision());
    });

    it('rejects a resourceVersion together with continue, and malformed continue tokens', async () => {
      const { store } = context.target;
      const prefix = context.prefix();
      await createAll(store, prefix, 3);
      const first = await store.getList(prefix, { recursive: true, predicate: { limit: 1 } });
      const withRV = await expectStatusError(
        store.getList(prefix, { recursive: true, resourceVersion: first.resourceVersion, predicate: { limit: 1, continue: first.continue as string } }),
        400,
      );
      expect(withRV.message).toBe('specifying resource version is not allowed when using continue');
      const zeroRV = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' })).toString('base64url');
      const invalid = await expectStatusError(store.getList(prefix, { recursive: true, predicate: { continue: zeroRV } }), 400);
      expect(invalid.message).toBe(
        'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      );
      const traversal = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 5, start: '../other' })).toString('base64url');
      const escaped = await expectStatusError(store.getList(prefix, { recursive: true, predicate: { continue: traversal } }), 400);
      expect(escaped.message).toMatch(/^invalid continue token: continue key is not valid/);
      const garbage = await expectStatusError(store.getList(prefix, { recursive: true, predicate: { continue: '%%%' } }), 400);
      expect(garbage.message).toMatch(/^invalid continue token: continue key is not valid/);
    });
  });
}
