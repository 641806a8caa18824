import { afterEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend.js';
import { temporaryDatabase } from './test-support/temporary-database.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const settledWithin = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

for (const writerThread of [false, true]) {
  describe(`deferrable writes (${writerThread ? 'writer thread' : 'inline'})`, () => {
    let database: ReturnType<typeof temporaryDatabase>;
    let kv: SqliteBackend;
    const open = async () => {
      database = temporaryDatabase();
      kv = await SqliteBackend.open({ path: database.path, writerThread });
    };
    afterEach(async () => {
      await kv.close();
      database.remove();
    });

    it('waits for the next ordinary write and commits in its transaction', async () => {
      await open();
      const created = await kv.create('/k/a', bytes('1'));
      const before = kv.stats.transactions;
      const rewrite = kv.update('/k/a', bytes('1 re-encoded'), created.revision, { deferrable: true });
      // Not committed on its own at once: it waits (up to 20 ms) for company.
      expect(await settledWithin(rewrite, 5)).toBe(false);
      const [deferred, ordinary] = await Promise.all([rewrite, kv.create('/k/b', bytes('2'))]);
      expect(deferred).toMatchObject({ succeeded: true });
      expect(ordinary).toMatchObject({ succeeded: true });
      expect(kv.stats.transactions - before).toBe(1);
      expect(new TextDecoder().decode((await kv.get('/k/a')).entry?.value)).toBe('1 re-encoded');
    });

    it('commits alone after a short wait when no other write comes, and the deferrable writes gathered meanwhile together', async () => {
      await open();
      const created = await Promise.all(Array.from({ length: 16 }, (_, i) => kv.create(`/k/${i}`, bytes(`${i}`))));
      const alone = await kv.update('/k/0', bytes('x'), created[0]?.revision ?? 0, { deferrable: true });
      expect(alone).toMatchObject({ succeeded: true });
      const before = kv.stats.transactions;
      const results = await Promise.all(
        created.map((result, i) => (i === 0 ? Promise.resolve(alone) : kv.update(`/k/${i}`, bytes('y'), result.revision, { deferrable: true }))),
      );
      expect(results.every((result) => result.succeeded)).toBe(true);
      expect(kv.stats.transactions - before).toBe(1);
    });
  });
}
