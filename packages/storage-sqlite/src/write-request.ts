import type { KVEntry, KVEvent, KVWriteCondition, KVWriteResult } from '@kapi/storage';
import { keyBytes } from './key-range.js';
import { entryOfRow, plainBytes } from './log-row.js';
import { DELETE, PUT, type SqliteStatements } from './sqlite-schema.js';

/** One queued write: create-if-absent, update-if-modRevision or delete-if-modRevision. */
export interface WriteRequest {
  kind: 'create' | 'update' | 'delete';
  key: string;
  /** The new value (empty for deletes): the caller's bytes, which it no longer modifies. */
  value: Buffer;
  /** The modRevision the key must have (update, delete). */
  expectedModRevision: number;
  ttlSeconds?: number;
  condition?: KVWriteCondition;
  /** May wait briefly to commit with other writes (see KVWriteOptions.deferrable). */
  deferrable?: boolean;
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
): KVWriteResult {
  const key = keyBytes(request.key);
  const currentRow = statements.currentRow.get(key);
  const current = currentRow ? entryOfRow(currentRow, now) : undefined;
  if (request.condition && !conditionHolds(statements, request.condition)) {
    return failure('condition', current, revision - 1);
  }
  if (
    request.kind === 'create' ? current !== undefined : current?.modRevision !== request.expectedModRevision
  ) {
    return failure('conflict', current, revision - 1);
  }
  if (request.kind === 'delete') {
    const previous = current as KVEntry;
    statements.insertRow.run(revision, key, DELETE, empty, previous.createRevision, previous.modRevision, null);
    statements.deleteCurrent.run(key);
    return { succeeded: true, revision, previous };
  }
  const ttlSeconds = positiveTtl(request);
  const expiresAt = ttlSeconds !== undefined ? now + ttlSeconds * 1000 : null;
  const createRevision = current ? current.createRevision : revision;
  statements.insertRow.run(revision, key, PUT, request.value, createRevision, current?.modRevision ?? 0, expiresAt);
  statements.upsertCurrent.run(key, revision);
  return current ? { succeeded: true, revision, previous: current } : { succeeded: true, revision };
}

/** The watch event of a write that succeeded (built from the request and its result, in either thread). */
export function eventOfWrite(request: WriteRequest, result: KVWriteResult): KVEvent | undefined {
  if (!result.succeeded) return undefined;
  const { previous, revision } = result;
  if (request.kind === 'delete') {
    const entry: KVEntry = {
      key: request.key,
      value: new Uint8Array(0),
      createRevision: previous?.createRevision ?? revision,
      modRevision: revision,
    };
    return previous ? { type: 'delete', entry, previous } : { type: 'delete', entry };
  }
  const entry: KVEntry = {
    key: request.key,
    value: plainBytes(request.value),
    createRevision: previous ? previous.createRevision : revision,
    modRevision: revision,
  };
  const ttlSeconds = positiveTtl(request);
  if (ttlSeconds !== undefined) entry.ttlSeconds = ttlSeconds;
  return previous ? { type: 'put', entry, previous } : { type: 'put', entry };
}

function positiveTtl(request: WriteRequest): number | undefined {
  return request.ttlSeconds !== undefined && request.ttlSeconds > 0 ? request.ttlSeconds : undefined;
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
