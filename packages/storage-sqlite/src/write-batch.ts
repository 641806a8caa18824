import type Database from 'better-sqlite3';
import type { KVWriteResult } from '@kapi/storage';
import type { SqliteStatements } from './sqlite-schema.js';
import { applyWrite, type WriteRequest } from './write-request.js';

/** Commits a batch of writes in one transaction and returns each write's result, in order. */
export type BatchWriter = (batch: readonly WriteRequest[], now: number) => KVWriteResult[];

/**
 * The group commit: one IMMEDIATE transaction (one fsync) in which every write that succeeds takes the
 * next revision. A failed compare writes nothing and fails only its own write; an error of SQLite
 * itself rolls the whole batch back.
 */
export function batchWriter(db: Database.Database, statements: SqliteStatements): BatchWriter {
  const transaction = db.transaction((batch: readonly WriteRequest[], now: number) => {
    let revision = statements.maxRevision.get()?.revision ?? 0;
    return batch.map((request) => {
      const result = applyWrite(statements, request, revision + 1, now);
      if (result.succeeded) revision++;
      return result;
    });
  });
  return (batch, now) => transaction.immediate(batch, now);
}

/** Compacts the log at `revision` in one transaction (a no-op at or below the compacted revision). */
export function compactLog(db: Database.Database, statements: SqliteStatements, revision: number): void {
  db.transaction(() => {
    const current = statements.maxRevision.get()?.revision ?? 0;
    if (revision <= (statements.compactedRevision.get()?.value ?? 0)) return;
    statements.compact.run(revision, current, revision);
    statements.setCompactedRevision.run(revision);
  }).immediate();
}
