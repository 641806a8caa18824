/**
 * The checkpoint thread's entry (started by {@link CheckpointThread}): every interval, a PASSIVE
 * checkpoint on its own connection, which copies committed WAL frames into the database without
 * waiting for (or blocking) readers and the writer.
 */
import { workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { RUNS, STOP, type CheckpointThreadData } from './checkpoint-thread.js';

function run({ path, busyTimeoutMs, intervalMs, shared }: CheckpointThreadData): void {
  const state = new Int32Array(shared);
  let db: Database.Database;
  try {
    db = new Database(path);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  } catch {
    return;
  }
  try {
    while (Atomics.wait(state, STOP, 0, intervalMs) === 'timed-out') {
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
        Atomics.add(state, RUNS, 1);
      } catch {
        // Busy or failing: the next round tries again, and the writer's backstop still checkpoints.
      }
    }
  } finally {
    db.close();
  }
}

run(workerData as CheckpointThreadData);
