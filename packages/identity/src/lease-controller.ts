import { randomUUID } from 'node:crypto';
import { StatusError } from '@kapi/apimachinery';
import { microTime, type Lease, type ResourceClient } from '@kapi/client';
import { HOSTNAME_LABEL, IDENTITY_LABEL, IDENTITY_LEASE_NAMESPACE } from './apiserver-identity.js';
import { realClock, type Clock } from './clock.js';

/** Options of a {@link LeaseController}. */
export interface LeaseControllerOptions {
  leases: ResourceClient<Lease>;
  /** The apiserver identity, used as the lease name. */
  identity: string;
  hostname: string;
  /** Label value of `apiserver.kubernetes.io/identity`. Default `kube-apiserver`. */
  component?: string;
  /** `--identity-lease-duration-seconds`, default 3600. */
  leaseDurationSeconds?: number;
  /** `--identity-lease-renew-interval-seconds`, default 10. */
  renewIntervalSeconds?: number;
  clock?: Clock;
  /** Called after every sync attempt (for metrics and logs). */
  onSync?(result: { ok: boolean; error?: unknown }): void;
}

const jitterFactor = 0.04;

/**
 * Keeps this apiserver's identity Lease in kube-system: holderIdentity `<id>_<uuid>` (new on each start,
 * written over the one a previous process left), renewed every renew interval with 4 % jitter (renewTime and leaseDurationSeconds).
 */
export class LeaseController {
  /** `<identity>_<uuid>`, fixed for this process. */
  readonly holderIdentity: string;
  private timer: { cancel(): void } | undefined;
  private stopped = true;
  private readonly clock: Clock;

  constructor(private readonly options: LeaseControllerOptions) {
    this.holderIdentity = `${options.identity}_${randomUUID()}`;
    this.clock = options.clock ?? realClock;
  }

  private get durationSeconds(): number {
    return this.options.leaseDurationSeconds ?? 3600;
  }

  /** Creates or renews the lease once. Retries an update up to 5 times (re-reading on conflict). */
  async sync(): Promise<Lease> {
    const { leases, identity } = this.options;
    for (let attempt = 0; ; attempt++) {
      let current: Lease | undefined;
      try {
        current = await leases.get(IDENTITY_LEASE_NAMESPACE, identity);
      } catch (error) {
        if (!(StatusError.isInstance(error) && error.code === 404)) throw error;
      }
      try {
        if (!current) return await leases.create(IDENTITY_LEASE_NAMESPACE, this.newLease());
        const now = microTime(this.clock.now());
        // A lease left by this server's previous process gets this process's holder (and acquire time).
        const acquired = current.spec?.holderIdentity === this.holderIdentity ? {} : { holderIdentity: this.holderIdentity, acquireTime: now };
        return await leases.update(IDENTITY_LEASE_NAMESPACE, {
          ...current,
          metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...this.labels() } },
          spec: { ...current.spec, ...acquired, renewTime: now, leaseDurationSeconds: this.durationSeconds },
        });
      } catch (error) {
        const retryable = StatusError.isInstance(error) && (error.code === 409 || error.code === 404);
        if (!retryable || attempt >= 4) throw error;
      }
    }
  }

  private labels(): Record<string, string> {
    return { [IDENTITY_LABEL]: this.options.component ?? 'kube-apiserver', [HOSTNAME_LABEL]: this.options.hostname };
  }

  private newLease(): Lease {
    const now = microTime(this.clock.now());
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.options.identity, namespace: IDENTITY_LEASE_NAMESPACE, labels: this.labels() },
      spec: {
        holderIdentity: this.holderIdentity,
        leaseDurationSeconds: this.durationSeconds,
        acquireTime: now,
        renewTime: now,
      },
    };
  }

  /** Starts the renew loop; resolves after the first successful sync (retrying with backoff 200 ms .. 7 s). */
  async start(): Promise<void> {
    this.stopped = false;
    let backoff = 200;
    for (;;) {
      try {
        await this.sync();
        this.options.onSync?.({ ok: true });
        break;
      } catch (error) {
        this.options.onSync?.({ ok: false, error });
        if (this.stopped) return;
        await new Promise<void>((resolve) => this.clock.setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, 7000);
      }
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const interval = (this.options.renewIntervalSeconds ?? 10) * 1000;
    const delay = interval * (1 + Math.random() * jitterFactor);
    this.timer = this.clock.setTimeout(() => {
      this.sync()
        .then(() => this.options.onSync?.({ ok: true }))
        .catch((error: unknown) => this.options.onSync?.({ ok: false, error }))
        .finally(() => this.schedule());
    }, delay);
  }

  /** Stops renewing. With `deleteLease`, removes the lease so peers see this server gone at once. */
  async stop(options: { deleteLease?: boolean } = {}): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    if (options.deleteLease) {
      await this.options.leases.delete(IDENTITY_LEASE_NAMESPACE, this.options.identity).catch(() => undefined);
    }
  }
}
