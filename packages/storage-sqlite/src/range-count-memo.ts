/** How many continued lists (range, revision) are remembered at once. */
const defaultCapacity = 64;

/**
 * The number of live keys left in a range at a revision, remembered from a limited range read, so that
 * the next page of the same list needs no COUNT. A page read at revision R over `[start, end)` that
 * returned `n` of `count` keys, the last being `k`, leaves `count - n` keys in `[k + 0x00, end)` at R,
 * which is exactly where a continue token made from `k` starts. Revisions are immutable, so the figure
 * stays true; a compacted revision fails its read before the memo is asked. Without it every continue
 * page counted its remaining keys again: O(remaining keys) a page, O(n²/page) for a whole paged LIST.
 */
export class RangeCountMemo {
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = defaultCapacity) {}

  /** The count remembered for `[start, end)` at `revision`, if any. */
  get(start: Buffer, end: Buffer, revision: number): number | undefined {
    return this.counts.get(memoKey(start, end, revision));
  }

  /** Remembers that `[start, end)` holds `count` live keys at `revision` (the oldest figure goes past capacity). */
  remember(start: Buffer, end: Buffer, revision: number, count: number): void {
    const key = memoKey(start, end, revision);
    this.counts.delete(key);
    this.counts.set(key, count);
    if (this.counts.size > this.capacity) {
      const oldest = this.counts.keys().next();
      if (!oldest.done) this.counts.delete(oldest.value);
    }
  }
}

function memoKey(start: Buffer, end: Buffer, revision: number): string {
  return `${revision}/${start.toString('base64')}/${end.toString('base64')}`;
}
