/** Upstream's size of the garbage collector's `absentOwnerCache`. */
export const defaultAbsentOwnerCacheSize = 500;

/**
 * Owners known to be gone (upstream's `absentOwnerCache`): an owner read live and found absent, or
 * holding another uid, is remembered by uid and the namespace it was looked for in, so the many
 * dependents of a deleted owner (the pods of a ReplicaSet) cost one read of it, not one each. A uid is
 * never reused, so an entry never goes stale; the least recently used one is dropped past `size`.
 */
export class AbsentOwnerCache {
  private readonly entries = new Set<string>();

  constructor(private readonly size = defaultAbsentOwnerCacheSize) {}

  /** Whether the owner of `uid`, looked for in `namespace` ('' when cluster-scoped), is known to be gone. */
  has(uid: string, namespace: string): boolean {
    const key = `${namespace}/${uid}`;
    if (!this.entries.has(key)) return false;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.add(key);
    return true;
  }

  /** Remembers that the owner of `uid` is not found in `namespace`. */
  add(uid: string, namespace: string): void {
    const key = `${namespace}/${uid}`;
    this.entries.delete(key);
    this.entries.add(key);
    if (this.entries.size > this.size) this.entries.delete(this.entries.values().next().value as string);
  }

  /** How many owners it remembers. */
  get length(): number {
    return this.entries.size;
  }
}
