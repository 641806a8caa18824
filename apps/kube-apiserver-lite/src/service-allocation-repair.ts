import type { KubeObject } from '@kapi/apimachinery';
import type { Interface, Watch } from '@kapi/storage';
import { sameService, type Claim, type ServiceRef } from './service-claims.js';

/** Upstream's repair interval of the service IP and node port allocators. */
export const defaultRepairIntervalMs = 3 * 60 * 1000;
/** How old an allocation no Service holds must be before a repair releases it: a create may still be storing its Service. */
const orphanGraceMs = 60 * 1000;

/** One kind of value Services hold (cluster IPs, node ports), as the repair sees it. */
export interface RepairedAllocations {
  /** What the values are, for the log (e.g. `cluster IP`). */
  what: string;
  /** The values `service` holds. */
  heldBy(service: KubeObject): string[];
  list(): Promise<Claim[]>;
  release(id: string, service: ServiceRef): Promise<void>;
  /** Allocates `id` to `service` again; throws when it cannot be (taken, out of range). */
  restore(id: string, service: ServiceRef): Promise<void>;
}

export interface ServiceAllocationRepairOptions {
  kinds: RepairedAllocations[];
  /** The services' storage and its key prefix. */
  services: Interface;
  servicesPrefix: string;
  intervalMs?: number;
  log?: (message: string) => void;
}

/** What one repair pass did, per kind (`what`): the values released and restored. */
export type RepairOutcome = Record<string, { released: string[]; restored: string[] }>;

/**
 * Keeps Services' allocations (cluster IPs, node ports) and the Services in step, as upstream's repair
 * controllers: releases what a Service held when a watch sees it deleted (or drop a value), and every
 * interval compares all Services with all allocations, releasing values no Service holds (a create
 * that failed after its allocation, a release missed while down) and allocating again values Services
 * hold without an allocation. Every replica runs one; they agree through storage.
 */
export class ServiceAllocationRepair {
  private timer: NodeJS.Timeout | undefined;
  private watch: Watch | undefined;
  private stopped = false;

  constructor(private readonly options: ServiceAllocationRepairOptions) {}

  /** Runs a first pass, then watches and repairs every interval until {@link stop}. */
  async start(): Promise<void> {
    await this.runPass();
    this.timer = setInterval(() => void this.runPass(), this.options.intervalMs ?? defaultRepairIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.watch?.stop();
  }

  /** One pass; restarts the deletion watch when it has ended. */
  private async runPass(): Promise<void> {
    try {
      const { outcome, resourceVersion } = await this.repair();
      for (const [what, { released, restored }] of Object.entries(outcome)) {
        if (released.length || restored.length)
          this.options.log?.(
            `${what} repair: released ${released.join(', ') || 'none'}; restored ${restored.join(', ') || 'none'}`,
          );
      }
      if (!this.watch && !this.stopped) await this.watchChanges(resourceVersion);
    } catch (error) {
      this.options.log?.(
        `service allocation repair failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Compares every Service with every allocation (see the class). */
  async repair(now = Date.now()): Promise<{ outcome: RepairOutcome; resourceVersion: string }> {
    const { services, servicesPrefix } = this.options;
    const list = await services.getList(`${servicesPrefix}/`, { recursive: true });
    const outcome: RepairOutcome = {};
    for (const kind of this.options.kinds) {
      const done = (outcome[kind.what] = { released: [] as string[], restored: [] as string[] });
      const held = new Map<string, ServiceRef>();
      for (const service of list.items) for (const id of kind.heldBy(service)) held.set(id, refOf(service));
      const allocated = new Set<string>();
      for (const claim of await kind.list()) {
        allocated.add(claim.id);
        if (
          sameService(held.get(claim.id), claim.service) ||
          !claim.service ||
          now - claim.created < orphanGraceMs
        )
          continue;
        await kind.release(claim.id, claim.service);
        done.released.push(claim.id);
      }
      for (const [id, service] of held) {
        if (allocated.has(id)) continue;
        try {
          await kind.restore(id, service);
          done.restored.push(id);
        } catch (error) {
          this.options.log?.(
            `${kind.what} repair: ${service.namespace}/${service.name} holds ${id}, which cannot be allocated: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }
    return { outcome, resourceVersion: list.resourceVersion };
  }

  /** Releases what each Service deleted after `resourceVersion` held, and what an update dropped. */
  private async watchChanges(resourceVersion: string): Promise<void> {
    const { services, servicesPrefix } = this.options;
    const watch = await services.watch(`${servicesPrefix}/`, { recursive: true, resourceVersion });
    this.watch = watch;
    void (async () => {
      try {
        for await (const event of watch) {
          const before =
            event.type === 'DELETED'
              ? (event.object as KubeObject)
              : event.type === 'MODIFIED'
                ? event.previousObject
                : undefined;
          if (!before) continue;
          for (const kind of this.options.kinds) {
            const kept = new Set(event.type === 'MODIFIED' ? kind.heldBy(event.object as KubeObject) : []);
            for (const id of kind.heldBy(before)) {
              if (kept.has(id)) continue;
              await kind
                .release(id, refOf(before))
                .catch((error: unknown) =>
                  this.options.log?.(`${kind.what} release of ${id}: ${String(error)}`),
                );
            }
          }
        }
      } finally {
        // The next pass relists and watches again.
        if (this.watch === watch) this.watch = undefined;
      }
    })();
  }
}

function refOf(service: KubeObject): ServiceRef {
  return { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
}
