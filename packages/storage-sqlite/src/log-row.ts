import type { KVEntry, KVEvent } from '@kapi/storage';
import { DELETE, type CurrentRow, type LogRow, type SqliteStatements } from './sqlite-schema.js';

const empty = new Uint8Array(0);

/** A plain Uint8Array view of a Buffer (entries hand out Uint8Array, as the contract says). */
export function plainBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Seconds left before `expiresAt` (epoch ms), rounded up; never negative. */
export function ttlSecondsLeft(expiresAt: number, now: number): number {
  return Math.max(0, Math.ceil((expiresAt - now) / 1000));
}

/** The entry a put row describes. */
export function entryOfRow(row: LogRow | CurrentRow, now: number): KVEntry {
  const entry: KVEntry = {
    key: typeof row.key === 'string' ? row.key : row.key.toString('utf8'),
    value: plainBytes(row.value),
    createRevision: row.create_revision,
    modRevision: row.revision,
  };
  if (row.expires_at !== null) entry.ttlSeconds = ttlSecondsLeft(row.expires_at, now);
  return entry;
}

/** The watch event a log row describes; `previous` is read from the log by `prev_revision`. */
export function eventOfRow(row: LogRow, statements: SqliteStatements, now: number): KVEvent {
  const previousRow = row.prev_revision > 0 ? statements.rowAt.get(row.prev_revision) : undefined;
  const previous = previousRow ? entryOfRow(previousRow, now) : undefined;
  if (row.type === DELETE) {
    const entry: KVEntry = {
      key: row.key.toString('utf8'),
      value: empty,
      createRevision: row.create_revision,
      modRevision: row.revision,
    };
    return previous ? { type: 'delete', entry, previous } : { type: 'delete', entry };
  }
  const entry = entryOfRow(row, now);
  return previous ? { type: 'put', entry, previous } : { type: 'put', entry };
}
