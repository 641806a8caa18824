import { Gauge, type Registry } from 'prom-client';
import { LeaderElector, type Lease, type ResourceClient } from '@kapi/client';

/** What {@link runWhileLeading} needs. */
export interface LeaderElectedOptions {
  leases: ResourceClient<Lease>;
  /** The lease's name, in `kube-system`. */
  name: string;
  /** This server's identity (the lease's holderIdentity while it leads). */
  identity: string;
  log(message: string): void;
  /** `leader_election_master_status{name}` is exported here when given. */
  status?: LeaderStatusGauge;
  /**
   * The campaign starts once this resolves (kube-system exists: a first attempt before would fail and
   * wait a whole retry period); if it rejects, there is no campaign.
   */
  after?: Promise<void>;
}

/** Stops what a leader started; awaited before the lease is released or another term starts. */
export type StopLeading = () => Promise<void> | void;

/** client-go's `leader_election_master_status` gauge: 1 while this process leads the named lease, else 0. */
export type LeaderStatusGauge = Gauge<'name'>;

const gauges = new WeakMap<Registry, LeaderStatusGauge>();

/** The `leader_election_master_status` gauge of `registry` (one per registry, shared by every lease). */
export function leaderStatusGauge(registry: Registry): LeaderStatusGauge {
  let gauge = gauges.get(registry);
  if (!gauge) {
    gauge = new Gauge({
      name: 'leader_election_master_status',
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'],
      registers: [registry],
    });
    gauges.set(registry, gauge);
  }
  return gauge;
}

/**
 * Runs `start` while this server holds the lease `kube-system/<name>` (client-go leader election: 15 s
 * lease, 10 s renew deadline, 2 s retry, released on stop so another replica takes over at once), and
 * calls what it returned when the lease is lost or on stop. So one replica runs the controllers at a time,
 * as kube-controller-manager's leader does.
 */
export function runWhileLeading(options: LeaderElectedOptions, start: () => StopLeading): { stop(): Promise<void> } {
  const abort = new AbortController();
  let stopCurrent: StopLeading | undefined;
  let stopping: Promise<void> = Promise.resolve();
  const endTerm = () => {
    const running = stopCurrent;
    stopCurrent = undefined;
    options.status?.set({ name: options.name }, 0);
    if (running) stopping = stopping.then(() => running()).catch((error) => options.log(`${options.name}: stopping: ${String(error)}`));
    return stopping;
  };
  options.status?.set({ name: options.name }, 0);
  const elector = new LeaderElector({
    leases: options.leases,
    namespace: 'kube-system',
    name: options.name,
    identity: options.identity,
    onStartedLeading: (signal) => {
      options.log(`${options.name}: ${options.identity} became the leader`);
      options.status?.set({ name: options.name }, 1);
      stopCurrent = start();
      signal.addEventListener('abort', () => void endTerm(), { once: true });
    },
    onStoppedLeading: () => options.log(`${options.name}: ${options.identity} stopped leading`),
  });
  const running = (options.after ?? Promise.resolve()).then(
    () => (abort.signal.aborted ? undefined : elector.run(abort.signal)),
    (error: unknown) => options.log(`${options.name}: not campaigning: ${String(error)}`),
  );
  return {
    stop: async () => {
      abort.abort();
      await running;
      await endTerm();
    },
  };
}
