import type { Worker } from 'node:worker_threads';
import { startWorker } from './worker-entry.js';

/** What the checkpoint thread's entry ({@link ./sqlite-checkpoint-worker.ts}) is given. */
export interface CheckpointThreadData {
  path: string;
  busyTimeoutMs: number;
  intervalMs: number;
  /** An Int32Array's buffer: `[stop flag, checkpoints run]`. */
  shared: SharedArrayBuffer;
}

/** Slots of the shared Int32Array. */
export const STOP = 0;
export const RUNS = 1;

/**
 * A thread with its own connection that copies the WAL back into the database (a PASSIVE checkpoint)
 * every `intervalMs`, concurrently with the writer thread's commits. Without it the connection that
 * commits runs the checkpoint itself once the WAL reaches its autocheckpoint size, and no commit
 * happens meanwhile; with it, the writer's own checkpoint (kept as a backstop, at a larger size) finds
 * the frames already copied. The thread never keeps the process alive.
 */
export class CheckpointThread {
  private readonly state: Int32Array;
  private readonly exited: Promise<void>;

  private constructor(private readonly worker: Worker, shared: SharedArrayBuffer) {
    this.state = new Int32Array(shared);
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    // A failed checkpoint thread costs throughput, not correctness: the writer's backstop checkpoints.
    worker.on('error', () => undefined);
    worker.unref();
  }

  /** Starts the thread (it opens its connection on its own; a failure to open ends it). */
  static start(options: { path: string; busyTimeoutMs: number; intervalMs: number }): CheckpointThread {
    const shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
    const data: CheckpointThreadData = { ...options, shared };
    return new CheckpointThread(startWorker('sqlite-checkpoint-worker', data), shared);
  }

  /** Checkpoints run so far. */
  get checkpoints(): number {
    return Atomics.load(this.state, RUNS);
  }

  /** Stops the thread (after the checkpoint it may be running) and closes its connection. */
  async close(): Promise<void> {
    Atomics.store(this.state, STOP, 1);
    Atomics.notify(this.state, STOP);
    this.worker.ref();
    await this.exited;
  }
}
