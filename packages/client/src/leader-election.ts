import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { ResourceClient } from './resource-client.js';
import { sleep } from './sleep.js';

/** coordination.k8s.io/v1 Lease. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** A source of "now", injectable in tests. */
export interface Clock {
  now(): number;
}

/** Options of a {@link LeaderElector} (client-go leaderelection.LeaderElectionConfig). */
export interface LeaderElectionOptions {
  /** A client for coordination.k8s.io/v1 leases. */
  leases: ResourceClient<Lease>;
  namespace: string;
  name: string;
  /** This candidate's identity (unique per process). */
  identity: string;
  /** Default 15 s. */
  leaseDurationMs?: number;
  /** A leader that cannot renew for this long steps down. Default 10 s. */
  renewDeadlineMs?: number;
  /** How often to try to acquire or renew. Default 2 s. */
  retryPeriodMs?: number;
  /** Clear holderIdentity when stopping while leading, so another candidate takes over at once. Default true. */
  releaseOnCancel?: boolean;
  clock?: Clock;
  onStartedLeading?(signal: AbortSignal): void;
  onStoppedLeading?(): void;
  onNewLeader?(identity: string): void;
}

/** RFC 3339 with microseconds, the format of metav1.MicroTime. */
export function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election on a Lease: at most one candidate leads at a time; the leader renews every retry period
 * and steps down when it cannot renew within the renew deadline.
 */
export class LeaderElector {
  private leading = false;
  private observedHolder = '';
  private observedRenewTime = '';
  private observedAt = 0;
  private leaderAbort: AbortController | undefined;
  private readonly clock: Clock;

  constructor(private readonly options: LeaderElectionOptions) {
    this.clock = options.clock ?? { now: () => Date.now() };
  }

  /** True while this candidate holds the lease. */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last observed on the lease. */
  get leader(): string {
    return this.observedHolder;
  }

  /** Campaigns and leads until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const retry = this.options.retryPeriodMs ?? 2000;
    const renewDeadline = this.options.renewDeadlineMs ?? 10_000;
    let lastRenew = 0;
    while (!signal.aborted) {
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
      } catch {
        ok = false;
      }
      const now = this.clock.now();
      if (ok) {
        lastRenew = now;
        if (!this.leading) {
          this.leading = true;
          this.leaderAbort = new AbortController();
          this.options.onStartedLeading?.(this.leaderAbort.signal);
        }
      } else if (this.leading && now - lastRenew > renewDeadline) {
        this.stepDown();
      }
      await sleep(retry, signal);
    }
    if (this.leading) {
      if (this.options.releaseOnCancel ?? true) await this.release().catch(() => undefined);
      this.stepDown();
    }
  }

  private stepDown(): void {
    this.leading = false;
    this.leaderAbort?.abort();
    this.leaderAbort = undefined;
    this.options.onStoppedLeading?.();
  }

  private observe(lease: Lease): void {
    const holder = lease.spec?.holderIdentity ?? '';
    const renewTime = lease.spec?.renewTime ?? '';
    if (holder !== this.observedHolder || renewTime !== this.observedRenewTime) {
      if (holder !== this.observedHolder && holder) this.options.onNewLeader?.(holder);
      this.observedHolder = holder;
      this.observedRenewTime = renewTime;
      this.observedAt = this.clock.now();
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { leases, namespace, name, identity } = this.options;
    const durationMs = this.options.leaseDurationMs ?? 15_000;
    const now = this.clock.now();
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(durationMs / 1000),
      renewTime: microTime(now),
    };
    let current: Lease;
    try {
      current = await leases.get(namespace, name);
    } catch (error) {
      if (!(StatusError.isInstance(error) && error.code === 404)) throw error;
      const created = await leases.create(namespace, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: { ...spec, acquireTime: microTime(now), leaseTransitions: 0 },
      });
      this.observe(created);
      return true;
    }
    this.observe(current);
    const holder = current.spec?.holderIdentity ?? '';
    const expired = this.observedAt + (current.spec?.leaseDurationSeconds ?? 0) * 1000 <= now;
    if (holder && holder !== identity && !expired) return false;
    const transitions = current.spec?.leaseTransitions ?? 0;
    const updated = await leases.update(namespace, {
      ...current,
      spec: {
        ...current.spec,
        ...spec,
        acquireTime: holder === identity ? (current.spec?.acquireTime ?? microTime(now)) : microTime(now),
        leaseTransitions: holder === identity ? transitions : transitions + 1,
      },
    });
    this.observe(updated);
    return true;
  }

  private async release(): Promise<void> {
    const { leases, namespace, name, identity } = this.options;
    const current = await leases.get(namespace, name);
    if (current.spec?.holderIdentity !== identity) return;
    await leases.update(namespace, {
      ...current,
      spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.clock.now()) },
    });
  }
}
