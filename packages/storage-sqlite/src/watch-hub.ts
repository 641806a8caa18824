import {
  RevisionCompactedError,
  type KVEvent,
  type KVWatch,
  type KVWatchListener,
  type KVWatchOptions,
} from '@kapi/storage';
import { keyMatches, rangeOf, type KeyRange } from './key-range.js';
import { eventOfRow } from './log-row.js';
import type { LogRow, SqliteStatements } from './sqlite-schema.js';

/** Rows read from the log per step of a replay or catch-up. */
const chunkSize = 1000;

interface Watcher {
  readonly options: KVWatchOptions;
  readonly listener: KVWatchListener;
  /** First revision this watcher has not been shown yet. */
  nextRevision: number;
  /** True until the replay from the log is done; live dispatch skips it meanwhile. */
  replaying: boolean;
  /** A requested progress notification arrived during the replay; it is sent when the replay ends. */
  progressPending: boolean;
  active: boolean;
}

/**
 * Delivers the log to watchers in revision order. Every revision goes out exactly once, whether it was
 * written in this process (handed over right after the commit) or by another process (read from the
 * log by {@link catchUp}): both paths advance the single `deliveredRevision` cursor.
 */
export class WatchHub {
  private readonly watchers = new Set<Watcher>();
  /** Every revision up to this one has been dispatched to the live watchers. */
  deliveredRevision: number;

  constructor(
    private readonly statements: SqliteStatements,
    private readonly now: () => number,
    startRevision: number,
  ) {
    this.deliveredRevision = startRevision;
  }

  /** Number of registered watches. */
  get size(): number {
    return this.watchers.size;
  }

  /** Registers a watch; its replay from the log runs in a microtask, before any further commit is dispatched. */
  add(options: KVWatchOptions, listener: KVWatchListener): KVWatch {
    const watcher: Watcher = {
      options,
      listener,
      nextRevision: options.startRevision,
      replaying: true,
      progressPending: false,
      active: true,
    };
    this.watchers.add(watcher);
    queueMicrotask(() => this.replay(watcher));
    return {
      cancel: () => {
        watcher.active = false;
        this.watchers.delete(watcher);
      },
    };
  }

  /** Hands over events just committed by this process (ordered, contiguous revisions). */
  deliverCommitted(events: KVEvent[]): void {
    const first = events[0];
    if (!first) return;
    if (first.entry.modRevision !== this.deliveredRevision + 1) {
      // Another process wrote in between: read everything up to and including ours from the log.
      this.catchUp();
      return;
    }
    this.dispatch(events);
    this.deliveredRevision = (events[events.length - 1] as KVEvent).entry.modRevision;
  }

  /** Reads and dispatches every log row newer than `deliveredRevision` (writes of other processes). */
  catchUp(): void {
    const max = this.statements.maxRevision.get()?.revision ?? 0;
    if (this.watchers.size === 0) {
      // Nobody to deliver to: skip reading the rows.
      this.deliveredRevision = Math.max(this.deliveredRevision, max);
      return;
    }
    while (this.deliveredRevision < max) {
      const rows = this.statements.rowsAfter.all(this.deliveredRevision, max, chunkSize);
      const last = rows[rows.length - 1];
      if (!last) break;
      const lastMissing = lastMissingRevision(rows, this.deliveredRevision + 1);
      if (lastMissing > 0) {
        // Another process compacted revisions this process never delivered: watches that needed them fail.
        const compacted = this.statements.compactedRevision.get()?.value ?? 0;
        const error = new RevisionCompactedError(this.deliveredRevision + 1, compacted);
        for (const watcher of [...this.watchers]) {
          if (!watcher.replaying && watcher.nextRevision <= lastMissing) this.fail(watcher, error);
        }
      }
      const now = this.now();
      this.dispatch(rows.map((row) => eventOfRow(row, this.statements, now)));
      this.deliveredRevision = last.revision;
    }
  }

  /**
   * Sends `onProgress(deliveredRevision)` to every caught-up watch (only those that asked for progress
   * notifications when `onlyProgressNotify`; only those whose keys overlap the keys under `key` when given).
   */
  notifyProgress(onlyProgressNotify: boolean, key?: string): void {
    const revision = this.deliveredRevision;
    for (const watcher of [...this.watchers]) {
      if (onlyProgressNotify && !watcher.options.progressNotify) continue;
      if (key !== undefined && !watchOverlaps(watcher.options, key)) continue;
      if (watcher.replaying) {
        if (!onlyProgressNotify) watcher.progressPending = true;
        continue;
      }
      this.sendProgress(watcher, revision);
    }
  }

  private sendProgress(watcher: Watcher, revision: number): void {
    if (!watcher.active || watcher.nextRevision > revision + 1) return;
    try {
      watcher.listener.onProgress?.(revision);
    } catch (error) {
      this.failWith(watcher, error);
    }
  }

  /** Ends every watch with `error`. */
  closeAll(error: Error): void {
    for (const watcher of [...this.watchers]) this.fail(watcher, error);
  }

  private replay(watcher: Watcher): void {
    if (!watcher.active) return;
    const { key, prefix, startRevision } = watcher.options;
    if (startRevision <= 0) {
      watcher.nextRevision = this.deliveredRevision + 1;
    } else {
      const compacted = this.statements.compactedRevision.get()?.value ?? 0;
      if (startRevision < compacted) {
        this.fail(watcher, new RevisionCompactedError(startRevision, compacted));
        return;
      }
      const range = rangeOf(key, prefix);
      const revisions = this.statements.matchingRevisionsAfter.all(range.start, range.end, startRevision - 1, this.deliveredRevision);
      revisions.sort((left, right) => left - right);
      for (let offset = 0; watcher.active && offset < revisions.length; offset += chunkSize) {
        const now = this.now();
        const events: KVEvent[] = [];
        for (const row of this.replayRows(revisions.slice(offset, offset + chunkSize), range)) {
          events.push(eventOfRow(row, this.statements, now));
        }
        if (events.length > 0) this.deliver(watcher, events);
      }
      watcher.nextRevision = Math.max(startRevision, this.deliveredRevision + 1);
    }
    watcher.replaying = false;
    if (watcher.progressPending) {
      watcher.progressPending = false;
      this.sendProgress(watcher, this.deliveredRevision);
    }
  }

  /**
   * The log rows at `revisions` (ascending, all in `range`): one statement over their revision span when
   * they fill at least a quarter of it (as a bulk load's do: ~2.5x faster than a lookup per row), else a
   * lookup per row (a resource whose rows are scattered among others' would walk those too).
   */
  private replayRows(revisions: readonly number[], range: KeyRange): LogRow[] {
    const first = revisions[0];
    const last = revisions[revisions.length - 1];
    if (first === undefined || last === undefined) return [];
    if (last - first + 1 <= revisions.length * 4) {
      return this.statements.matchingRowsBetween.all(first, last, range.start, range.end);
    }
    const rows: LogRow[] = [];
    for (const revision of revisions) {
      const row = this.statements.rowAt.get(revision);
      if (row) rows.push(row);
    }
    return rows;
  }

  /**
   * Hands each live watch the events it wants. Every watch of the backend (one per cached resource, and
   * more) sees every write: nothing is allocated for a watch that none of the events match.
   */
  private dispatch(events: KVEvent[]): void {
    const last = events[events.length - 1];
    if (!last) return;
    for (const watcher of [...this.watchers]) {
      if (!watcher.active || watcher.replaying) continue;
      const matching = eventsFor(watcher, events);
      watcher.nextRevision = Math.max(watcher.nextRevision, last.entry.modRevision + 1);
      if (matching) this.deliver(watcher, matching);
    }
  }

  /** Hands a watch events; a listener that throws ends its own watch with that error (others are unaffected). */
  private deliver(watcher: Watcher, events: KVEvent[]): void {
    try {
      watcher.listener.onEvents(events);
    } catch (error) {
      this.failWith(watcher, error);
    }
  }

  /** Ends a watch whose listener threw `error`. */
  private failWith(watcher: Watcher, error: unknown): void {
    this.fail(watcher, error instanceof Error ? error : new Error(String(error)));
  }

  private fail(watcher: Watcher, error: Error): void {
    if (!watcher.active) return;
    watcher.active = false;
    this.watchers.delete(watcher);
    safely(() => watcher.listener.onError(error));
  }
}

/** The highest revision missing from `rows`, which should run contiguously from `first` (0: none missing). */
function lastMissingRevision(rows: LogRow[], first: number): number {
  let expected = first;
  let lastMissing = 0;
  for (const row of rows) {
    if (row.revision > expected) lastMissing = row.revision - 1;
    expected = row.revision + 1;
  }
  return lastMissing;
}

/** Errors thrown by `onError` itself are ignored: the watch is over anyway. */
function safely(call: () => void): void {
  try {
    call();
  } catch {
    // Nothing left to tell this watch.
  }
}

/** True when a watch of `options` can see keys under `key` (the watch's key is under it, or its prefix holds it). */
function watchOverlaps(options: { key: string; prefix?: boolean }, key: string): boolean {
  return options.key.startsWith(key) || (options.prefix === true && key.startsWith(options.key));
}

/** The events a watch has not seen yet and whose keys it watches, or undefined when there are none. */
function eventsFor(watcher: Watcher, events: readonly KVEvent[]): KVEvent[] | undefined {
  const { key, prefix } = watcher.options;
  let matching: KVEvent[] | undefined;
  for (const event of events) {
    if (event.entry.modRevision >= watcher.nextRevision && keyMatches(event.entry.key, key, prefix)) (matching ??= []).push(event);
  }
  return matching;
}
