import type { KVEntry } from '@kapi/storage';

/**
 * The revision history of one key: parallel arrays of revisions and entries, oldest first.
 * A `null` entry is a tombstone (the key was deleted at that revision).
 */
export interface KeyHistory {
  revisions: number[];
  entries: Array<KVEntry | null>;
  /** Expiry timer of the current incarnation, when written with a TTL. */
  timer?: ReturnType<typeof setTimeout> | undefined;
  /** Wall-clock expiry (ms) of the current incarnation. */
  expiresAt?: number | undefined;
}

/**
 * A sorted index of keys with each key's history, so reads at older revisions work until compaction.
 */
export class KeyIndex {
  private readonly histories = new Map<string, KeyHistory>();
  /** All keys with any retained history, sorted by UTF-16 code units. */
  private readonly sorted: string[] = [];

  /** The history of `key`, if any is retained. */
  history(key: string): KeyHistory | undefined {
    return this.histories.get(key);
  }

  /** The live entry of `key` (latest, not deleted). */
  latest(key: string): KVEntry | undefined {
    const history = this.histories.get(key);
    if (!history) return undefined;
    return history.entries[history.entries.length - 1] ?? undefined;
  }

  /** The entry of `key` as of `revision`, or undefined when it did not exist then. */
  at(key: string, revision: number): KVEntry | undefined {
    const history = this.histories.get(key);
    if (!history) return undefined;
    const revisions = history.revisions;
    // Fast path: the latest version is usually what is asked for.
    let index = revisions.length - 1;
    if ((revisions[index] as number) > revision) {
      let low = 0;
      let high = index;
      // Find the last index with revisions[index] <= revision.
      index = -1;
      while (low <= high) {
        const middle = (low + high) >>> 1;
        if ((revisions[middle] as number) <= revision) {
          index = middle;
          low = middle + 1;
        } else {
          high = middle - 1;
        }
      }
      if (index < 0) return undefined;
    }
    return history.entries[index] ?? undefined;
  }

  /** Records a new version (or a tombstone when `entry` is null) of `key` at `revision`. */
  record(key: string, revision: number, entry: KVEntry | null): KeyHistory {
    let history = this.histories.get(key);
    if (!history) {
      history = { revisions: [], entries: [] };
      this.histories.set(key, history);
      this.sorted.splice(this.lowerBound(key), 0, key);
    }
    history.revisions.push(revision);
    history.entries.push(entry);
    return history;
  }

  /** Index of the first sorted key >= `key`. */
  lowerBound(key: string): number {
    const sorted = this.sorted;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((sorted[middle] as string) < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The sorted key at `index`. */
  keyAt(index: number): string | undefined {
    return this.sorted[index];
  }

  /**
   * Drops history older than `revision`: per key, every version before the one visible at `revision`,
   * and that one too when it is a tombstone. Keys left without history leave the index.
   */
  compact(revision: number): void {
    let removed = false;
    for (const [key, history] of this.histories) {
      const revisions = history.revisions;
      if ((revisions[0] as number) >= revision) continue;
      let visible = -1;
      for (let index = 0; index < revisions.length && (revisions[index] as number) <= revision; index++) visible = index;
      let drop = visible;
      if (visible >= 0 && history.entries[visible] === null) drop = visible + 1;
      if (drop <= 0) continue;
      revisions.splice(0, drop);
      history.entries.splice(0, drop);
      if (revisions.length === 0) {
        this.histories.delete(key);
        removed = true;
      }
    }
    if (removed) {
      let write = 0;
      for (let read = 0; read < this.sorted.length; read++) {
        const key = this.sorted[read] as string;
        if (this.histories.has(key)) this.sorted[write++] = key;
      }
      this.sorted.length = write;
    }
  }

  /** Every retained history (for clearing timers on close). */
  allHistories(): IterableIterator<KeyHistory> {
    return this.histories.values();
  }
}
