/** Options of a {@link LeaseManager}. */
export interface LeaseManagerOptions {
  /** Grants a lease of `ttlSeconds` and returns its id (a decimal string: ids exceed 2^53). */
  grant(ttlSeconds: number): Promise<string>;
  /** The longest extra lifetime a shared lease may give a key. Default 60 s. */
  reuseDurationSeconds?: number;
  /** The extra lifetime as a fraction of the TTL. Default 0.05. */
  reuseDurationPercent?: number;
  /** The shortest reuse window, so that bursts of short-TTL writes share a lease. Default 1 s. */
  minimumReuseSeconds?: number;
  /** Keys attached to one lease before a new one is granted. Default 1000. */
  maxAttachedObjects?: number;
  now?: () => number;
}

interface CachedLease {
  id: Promise<string>;
  expiresAt: number;
  attached: number;
}

/**
 * Hands out etcd leases for TTL writes, sharing one lease between writes with the same TTL within a short
 * window (as Kubernetes' etcd3 leaseManager does), so that TTL writes rarely cost an extra round trip.
 * A key may live up to `max(minimumReuseSeconds, min(reuseDurationPercent * ttl, reuseDurationSeconds))`
 * longer than asked.
 */
export class LeaseManager {
  private readonly leases = new Map<number, CachedLease>();
  /** Extra seconds granted beyond the asked TTL, by lease id, until the lease expires. */
  private readonly extensions = new Map<string, { seconds: number; expiresAt: number }>();
  private readonly reuseSeconds: number;
  private readonly reusePercent: number;
  private readonly maxAttached: number;
  private readonly minimumReuseSeconds: number;
  private readonly now: () => number;

  constructor(private readonly options: LeaseManagerOptions) {
    this.reuseSeconds = options.reuseDurationSeconds ?? 60;
    this.reusePercent = options.reuseDurationPercent ?? 0.05;
    this.maxAttached = options.maxAttachedObjects ?? 1000;
    this.minimumReuseSeconds = options.minimumReuseSeconds ?? 1;
    this.now = options.now ?? Date.now;
  }

  /** A lease id that keeps a key alive for at least `ttlSeconds`. */
  leaseFor(ttlSeconds: number): Promise<string> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const now = this.now();
    const reuse = Math.max(
      this.minimumReuseSeconds,
      Math.min(Math.floor(this.reusePercent * ttl), this.reuseSeconds),
    );
    const cached = this.leases.get(ttl);
    if (cached) {
      // Valid: lives at least ttl from now. Sufficient: lives at most ttl+reuse from now. A grant still in
      // flight counts as valid (expiresAt is then measured from the request).
      const valid = cached.expiresAt >= now + ttl * 1000;
      const sufficient = cached.expiresAt <= now + (ttl + reuse) * 1000;
      if (valid && sufficient && cached.attached < this.maxAttached) {
        cached.attached++;
        return cached.id;
      }
    }
    const grantedTtl = ttl + reuse;
    const id = this.options.grant(grantedTtl);
    const entry: CachedLease = { id, expiresAt: now + grantedTtl * 1000, attached: 1 };
    this.leases.set(ttl, entry);
    id.then(
      (leaseId) => {
        this.pruneExtensions(now);
        if (reuse > 0) this.extensions.set(leaseId, { seconds: reuse, expiresAt: entry.expiresAt });
      },
      () => {
        if (this.leases.get(ttl) === entry) this.leases.delete(ttl);
      },
    );
    return id;
  }

  /**
   * The TTL to report for a key on `leaseId` with `remainingSeconds` left on the lease: the extra time a
   * shared lease was granted is not reported, so a key never appears to live longer than it asked for.
   */
  reportedTtl(leaseId: string, remainingSeconds: number): number {
    const extension = this.extensions.get(leaseId);
    if (!extension) return remainingSeconds;
    return Math.max(1, remainingSeconds - extension.seconds);
  }

  private pruneExtensions(now: number): void {
    for (const [leaseId, extension] of this.extensions) {
      if (extension.expiresAt < now) this.extensions.delete(leaseId);
    }
  }
}
