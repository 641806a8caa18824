import { FutureRevisionError } from '@kapi/storage';
import type { Etcd3Backend } from './etcd3-backend.js';

/** Options of {@link startCompactor}. */
export interface CompactorOptions {
  /** The backend to compact (only its compare-and-swap step and `compact` are used). */
  backend: Pick<Etcd3Backend, 'swapCompactRevision' | 'compact'>;
  /** Time between compactions (`--etcd-compaction-interval`). Default 5 minutes. */
  intervalMs?: number;
  /** Called after this compactor compacted etcd to `revision`. */
  onCompact?(revision: number): void;
  /** Called when a step fails (the compactor keeps going). Default: ignore. */
  onError?(error: unknown): void;
}

/** A compactor started by {@link startCompactor}. */
export interface RunningCompactor {
  /** Stops the timer; resolves when a step in flight has finished. */
  stop(): Promise<void>;
}

/** What one compactor remembers between intervals. */
export interface CompactorState {
  /** The version of `compact_rev_key` this compactor expects (its "lease"). */
  compactTime: number;
  /** The revision it saw at its last step: the target of its next compaction. */
  revision: number;
}

/**
 * One interval of the protocol (kube-apiserver `compact()`): compare-and-swap `compact_rev_key` from the
 * expected version to the remembered revision; the winner compacts to that revision. Resolves with the
 * compacted revision, or undefined when this compactor lost or had nothing to compact yet.
 */
export async function compactOnce(
  backend: CompactorOptions['backend'],
  state: CompactorState,
): Promise<number | undefined> {
  const target = state.revision;
  const swap = await backend.swapCompactRevision(state.compactTime, target);
  // Won or lost, follow the key's version and the current revision.
  state.compactTime = swap.version;
  state.revision = swap.currentRevision;
  if (!swap.succeeded || target === 0) return undefined; // lost, or the first round (nothing seen before)
  try {
    await backend.compact(target); // an already compacted target is a no-op there
  } catch (error) {
    // etcd's history is behind what we saw (e.g. restored from an older snapshot): skip this round.
    if (error instanceof FutureRevisionError) return undefined;
    throw error;
  }
  return target;
}

/**
 * Compacts etcd periodically as kube-apiserver does (`etcd3/compact.go`). Every interval each compactor
 * tries a compare-and-swap on `compact_rev_key` against the key's version it saw last; the version acts as
 * a lease, so among compactors sharing an etcd only the one that wins compacts, and it compacts to the
 * revision it saw one interval earlier. A loser adopts the new version and competes again next interval,
 * so with failover history is compacted within one to two intervals.
 */
export function startCompactor(options: CompactorOptions): RunningCompactor {
  const intervalMs = options.intervalMs ?? 5 * 60 * 1000;
  const state: CompactorState = { compactTime: 0, revision: 0 };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const step = async (): Promise<void> => {
    const compacted = await compactOnce(options.backend, state);
    if (compacted !== undefined) options.onCompact?.(compacted);
  };

  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      inFlight = step()
        .catch((error: unknown) => options.onError?.(error))
        .finally(schedule);
    }, intervalMs);
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
  };
}
