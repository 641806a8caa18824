import { StatusError } from '@kapi/apimachinery';
import type { Lease, ResourceClient } from '@kapi/client';
import { IDENTITY_LABEL, IDENTITY_LEASE_NAMESPACE } from './apiserver-identity.js';
import { realClock, type Clock } from './clock.js';

/** True when the lease has no renewTime or duration, or renewTime + duration has passed. */
export function isLeaseExpired(lease: Lease, now: number): boolean {
  const renewTime = lease.spec?.renewTime;
  const duration = lease.spec?.leaseDurationSeconds;
  if (!renewTime || duration === undefined) return true;
  return Date.parse(renewTime) + duration * 1000 < now;
}

/** Options of a {@link LeaseGarbageCollector}. */
export interface LeaseGarbageCollectorOptions {
  leases: ResourceClient<Lease>;
  /** Label value of `apiserver.kubernetes.io/identity`. Default `kube-apiserver`. */
  component?: string;
  /** How often to check; default the lease duration (3600 s). */
  intervalSeconds?: number;
  clock?: Clock;
  /** Called with each lease deleted. */
  onDelete?(name: string): void;
}

/**
 * Deletes expired apiserver identity leases (KEP-1965), re-reading each one before deleting it so a lease
 * renewed in the meantime survives.
 */
export class LeaseGarbageCollector {
  private timer: { cancel(): void } | undefined;
  private stopped = true;
  private readonly clock: Clock;

  constructor(private readonly options: LeaseGarbageCollectorOptions) {
    this.clock = options.clock ?? realClock;
  }

  /** One pass; returns the names deleted. */
  async runOnce(): Promise<string[]> {
    const { leases } = this.options;
    const selector = `${IDENTITY_LABEL}=${this.options.component ?? 'kube-apiserver'}`;
    const list = await leases.list(IDENTITY_LEASE_NAMESPACE, { labelSelector: selector });
    const deleted: string[] = [];
    for (const lease of list.items) {
      if (!isLeaseExpired(lease, this.clock.now())) continue;
      const name = lease.metadata.name ?? '';
      try {
        const fresh = await leases.get(IDENTITY_LEASE_NAMESPACE, name);
        if (!isLeaseExpired(fresh, this.clock.now())) continue;
        await leases.delete(IDENTITY_LEASE_NAMESPACE, name, {
          preconditions: { ...(fresh.metadata.resourceVersion ? { resourceVersion: fresh.metadata.resourceVersion } : {}) },
        });
        deleted.push(name);
        this.options.onDelete?.(name);
      } catch (error) {
        if (!(StatusError.isInstance(error) && (error.code === 404 || error.code === 409))) throw error;
      }
    }
    return deleted;
  }

  /** Runs a pass every interval. */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.runOnce()
        .catch(() => undefined)
        .finally(() => this.schedule());
    }, (this.options.intervalSeconds ?? 3600) * 1000);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }
}
