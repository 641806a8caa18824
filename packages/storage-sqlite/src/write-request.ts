import type { KVEntry, KVEvent, KVWriteCondition, KVWriteResult } from '@kapi/storage';
import { keyBytes } from './key-range.js';
import { entryOfRow, plainBytes } from './log-row.js';
import { DELETE, PUT, type SqliteStatements } from './sqlite-schema.js';

/** One queued write: create-if-absent, update-if-modRevision or delete-if-modRevision. */
export interface WriteRequest {
  kind: 'create' | 'update' | 'delete';
  key: string;
  /** The new value (empty for deletes); a private copy of the caller's bytes. */
  value: Buffer;
  /** The modRevision the key must have (update, delete). */
  expectedModRevision: number;
  ttlSeconds?: number;
  condition?: KVWriteCondition;
}

/** The result of one write and, when it succeeded, its event. */
export interface WriteOutcome {
  result: KVWriteResult;
  event?: KVEvent;
}

const empty = Buffer.alloc(0);

/**
 * Applies one write inside the open batch transaction at `revision` (the next free revision).
 * A failed compare writes nothing, so it only fails this write.
 */
export function applyWrite(
  statements: SqliteStatements,
  request: WriteRequest,
  revision: number,
  now: number,
): WriteOutcome {
  const key = keyBytes(request.key);
  const currentRow = statements.currentRow.get(key);
  const current = currentRow ? entryOfRow(currentRow, now) : undefined;
  if (request.condition && !conditionHolds(statements, request.condition)) {
    return { result: failure('condition', current, revision - 1) };
  }
  if (
    request.kind === 'create' ? current !== undefined : current?.modRevision !== request.expectedModRevision
  ) {
    return { result: failure('conflict', current, revision - 1) };
  }
  if (request.kind === 'delete') {
    const previous = current as KVEntry;
    statements.insertRow.run(
      revision,
      key,
      DELETE,
      empty,
      previous.createRevision,
      previous.modRevision,
      null,
    );
    statements.deleteCurrent.run(key);
    const entry: KVEntry = {
      key: request.key,
      value: new Uint8Array(0),
      createRevision: previous.createRevision,
      modRevision: revision,
    };
    return { result: { succeeded: true, revision, previous }, event: { type: 'delete', entry, previous } };
  }
  const ttlSeconds =
    request.ttlSeconds !== undefined && request.ttlSeconds > 0 ? request.ttlSeconds : undefined;
  const expiresAt = ttlSeconds !== undefined ? now + ttlSeconds * 1000 : null;
  const createRevision = current ? current.createRevision : revision;
  statements.insertRow.run(
    revision,
    key,
    PUT,
    request.value,
    createRevision,
    current?.modRevision ?? 0,
    expiresAt,
  );
  statements.upsertCurrent.run(key, revision);
  const entry: KVEntry = {
    key: request.key,
    value: plainBytes(request.value),
    createRevision,
    modRevision: revision,
  };
  if (ttlSeconds !== undefined) entry.ttlSeconds = ttlSeconds;
  if (!current) return { result: { succeeded: true, revision }, event: { type: 'put', entry } };
  return {
    result: { succeeded: true, revision, previous: current },
    event: { type: 'put', entry, previous: current },
  };
}

function conditionHolds(statements: SqliteStatements, condition: KVWriteCondition): boolean {
  const row = statements.currentRow.get(keyBytes(condition.key));
  return row !== undefined && row.value.equals(Buffer.from(condition.value, 'utf8'));
}

function failure(
  reason: 'conflict' | 'condition',
  current: KVEntry | undefined,
  revision: number,
): KVWriteResult {
  return current ? { succeeded: false, reason, current, revision } : { succeeded: false, reason, revision };
}
