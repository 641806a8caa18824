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

/** Stops what a leader started; a later term of the same process starts only once it has finished. */
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
 * as kube-controller-manager's leader does. As in client-go, the lease is released on stop before what
 * `start` began has stopped, so a successor may overlap it briefly: the controllers' writes are guarded.
 */
export function runWhileLeading(options: LeaderElectedOptions, start: () => StopLeading): { stop(): Promise<void> } {
  const abort = new AbortController();
  let stopCurrent: StopLeading | undefined;
  let stopping: Promise<void> = Promise.resolve();
  const endTerm = () => {
    const running = stopCurrent;
    stopCurrent = undefined;
    if (running) stopping = stopping.then(() => running()).catch((error) => options.log(`${options.name}: stopping: ${String(error)}`));
    return stopping;
  };
  const setStatus = (leading: boolean) => options.status?.set({ name: options.name }, leading ? 1 : 0);
  setStatus(false);
  const elector = new LeaderElector({
    leases: options.leases,
    namespace: 'kube-system',
    name: options.name,
    identity: options.identity,
    onStartedLeading: (signal) => {
      options.log(`${options.name}: ${options.identity} became the leader`);
      setStatus(true);
      // A term lost and won again starts once the last one's controllers have stopped.
      void stopping.then(() => {
        if (signal.aborted) return;
        stopCurrent = start();
        signal.addEventListener('abort', () => void endTerm(), { once: true });
      });
    },
    onStoppedLeading: () => {
      setStatus(false);
      options.log(`${options.name}: ${options.identity} stopped leading`);
    },
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
