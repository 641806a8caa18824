import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDatabase } from './test-support/temporary-database.js';
import { WalIndexHeaderProbe } from './wal-index-header.js';

describe('WalIndexHeaderProbe', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('reads a header that stays the same without commits and changes with each commit of any connection', () => {
    const database = temporaryDatabase();
    const writer = new Database(database.path);
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE t (v INTEGER)');
    const other = new Database(database.path);
    const probe = new WalIndexHeaderProbe(database.path);
    cleanups.push(() => {
      probe.close();
      other.close();
      writer.close();
      database.remove();
    });
    // The probe's Buffer is overwritten by each read: keep copies.
    const read = () => Buffer.from(probe.read() as Buffer);
    const first = read();
    expect(first).toHaveLength(48);
    expect(read()).toEqual(first);
    writer.prepare('INSERT INTO t VALUES (1)').run();
    const second = read();
    expect(second).not.toEqual(first);
    expect(read()).toEqual(second);
    other.prepare('SELECT count(*) FROM t').get();
    expect(read()).toEqual(second);
    other.prepare('INSERT INTO t VALUES (2)').run();
    expect(read()).not.toEqual(second);
  });

  it('has nothing to read for an in-memory database', () => {
    expect(new WalIndexHeaderProbe(':memory:').read()).toBeUndefined();
  });
});
