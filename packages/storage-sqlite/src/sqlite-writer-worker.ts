/**
 * The writer thread's entry (started by {@link WriterThread}): it owns the connection that writes, so a
 * group commit's SQLite work and fsync run beside the event loop instead of blocking it.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { KVWriteResult } from '@kapi/storage';
import { initializeDatabase, SqliteStatements } from './sqlite-schema.js';
import { batchWriter, compactLog, type BatchWriter } from './write-batch.js';
import type { WriteRequest } from './write-request.js';
import { unpackWrites, type WriterReply, type WriterRequest, type WriterThreadData } from './writer-protocol.js';

type WriteMessage = Extract<WriterRequest, { type: 'write' }>;

/** Transactions committed so far (numbers the replies). */
let transactions = 0;

function serve(port: MessagePort, { path, busyTimeoutMs, autocheckpointPages }: WriterThreadData): void {
  let db: Database.Database | undefined;
  try {
    db = new Database(path);
    initializeDatabase(db, busyTimeoutMs, false);
    if (autocheckpointPages !== undefined) db.pragma(`wal_autocheckpoint = ${Math.floor(autocheckpointPages)}`);
  } catch (error) {
    db?.close();
    port.postMessage(errorReply(0, error));
    port.close();
    return;
  }
  const connection = db;
  const statements = new SqliteStatements(connection);
  const write = batchWriter(connection, statements);
  port.on('message', (first: WriterRequest) => {
    // Everything that queued up while the last transaction ran: consecutive batches commit together.
    const messages = [first];
    for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) messages.push(next.message as WriterRequest);
    let writes: WriteMessage[] = [];
    for (const message of messages) {
      if (message.type === 'write') {
        writes.push(message);
        continue;
      }
      commitTogether(port, write, writes);
      writes = [];
      if (message.type === 'close') {
        connection.close();
        port.close();
        return;
      }
      try {
        compactLog(connection, statements, message.revision);
        port.postMessage({ id: message.id, results: [] } satisfies WriterReply);
      } catch (error) {
        port.postMessage(errorReply(message.id, error));
      }
    }
    commitTogether(port, write, writes);
  });
  port.postMessage({ id: 0, results: [] } satisfies WriterReply);
}

/** Commits several batches in one transaction and answers each batch with its own results. */
function commitTogether(port: MessagePort, write: BatchWriter, messages: WriteMessage[]): void {
  if (messages.length === 0) return;
  const batches = messages.map((message) => unpackWrites(message.writes));
  const requests: WriteRequest[] = batches.flat();
  let results: KVWriteResult[];
  try {
    results = write(requests, (messages[0] as WriteMessage).now);
  } catch (error) {
    for (const message of messages) port.postMessage(errorReply(message.id, error));
    return;
  }
  transactions++;
  let offset = 0;
  messages.forEach((message, index) => {
    const count = (batches[index] as WriteRequest[]).length;
    const reply: WriterReply = { id: message.id, results: results.slice(offset, offset + count), transaction: transactions };
    offset += count;
    port.postMessage(reply);
  });
}

function errorReply(id: number, error: unknown): WriterReply {
  const { message, code } = error as { message?: string; code?: string };
  return { id, error: { message: message ?? String(error), ...(code ? { code } : {}) } };
}

if (!parentPort) throw new Error('sqlite-writer-worker runs only as a worker thread');
serve(parentPort, workerData as WriterThreadData);
