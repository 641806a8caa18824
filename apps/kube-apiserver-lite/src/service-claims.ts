import { formatTime, type KubeObject } from '@kapi/apimachinery';
import { StorageError, type Interface } from '@kapi/storage';

/** The Service an allocation belongs to. */
export interface ServiceRef {
  namespace: string;
  name: string;
}

/** One allocation: its id (an address, a port), its Service and when it was made (ms). */
export interface Claim {
  id: string;
  service: ServiceRef | undefined;
  created: number;
}

/**
 * Allocations of a cluster-wide value to Services (cluster IPs, node ports), one storage object per
 * value under `prefix`: creating the object is the allocation and fails when any replica's Service
 * holds the value; deleting it is the release. `describe` makes the stored object of a value.
 */
export class ClaimStore {
  constructor(
    private readonly storage: Interface,
    private readonly prefix: string,
    private readonly describe: (id: string, service: ServiceRef, created: string) => KubeObject,
    private readonly parentOf: (object: KubeObject) => ServiceRef | undefined,
  ) {}

  /** Claims `id` for `service` if it is free (on a dry run: only tells whether it is); false when it is not. */
  async claimFree(id: string, service: ServiceRef, dryRun = false): Promise<boolean> {
    return dryRun ? !(await this.holder(id)) : this.claim(id, service);
  }

  /** Creates the claim of `id` for `service`; false when another claim holds it. */
  private async claim(id: string, service: ServiceRef): Promise<boolean> {
    try {
      await this.storage.create(this.keyOf(id), this.describe(id, service, formatTime(new Date())));
      return true;
    } catch (error) {
      if (StorageError.isInstance(error) && error.code === 'KeyExists') return false;
      throw error;
    }
  }

  /**
   * Holds `id` for `service`: true when it already does or the claim succeeds (on a dry run, when `id`
   * is free or its own, claiming nothing), false when another Service holds it.
   */
  async take(id: string, service: ServiceRef, dryRun = false): Promise<boolean> {
    const holder = await this.holder(id);
    if (holder) return sameService(holder, service);
    return dryRun || this.claim(id, service);
  }

  /** The Service holding `id`, if any. */
  async holder(id: string): Promise<ServiceRef | undefined> {
    const object = await this.storage.get(this.keyOf(id), { ignoreNotFound: true });
    return object ? this.parentOf(object) : undefined;
  }

  /** Releases `id` when `service` holds it (another holder's claim is left alone). */
  async release(id: string, service: ServiceRef): Promise<void> {
    const notHeld = new Error('not held');
    try {
      await this.storage.delete(this.keyOf(id), {
        validateDeletion: (current) => {
          if (!sameService(this.parentOf(current), service)) throw notHeld;
        },
      });
    } catch (error) {
      if (error === notHeld || (StorageError.isInstance(error) && error.code === 'KeyNotFound')) return;
      throw error;
    }
  }

  /** Every claim. */
  async list(): Promise<Claim[]> {
    const list = await this.storage.getList(`${this.prefix}/`, { recursive: true });
    return list.items.map((object) => ({
      id: object.metadata.name ?? '',
      service: this.parentOf(object),
      created: Date.parse(object.metadata.creationTimestamp ?? '') || 0,
    }));
  }

  private keyOf(id: string): string {
    return `${this.prefix}/${id}`;
  }
}

/** The `spec.parentRef` of a claim object, pointing at `service`. */
export function parentRefTo(service: ServiceRef): { spec: { parentRef: Record<string, string> } } {
  return {
    spec: {
      parentRef: { group: '', resource: 'services', namespace: service.namespace, name: service.name },
    },
  };
}

/** The Service a claim object's `spec.parentRef` points at. */
export function parentRefOf(object: KubeObject): ServiceRef | undefined {
  const parent = (object['spec'] as { parentRef?: { namespace?: string; name?: string } } | undefined)
    ?.parentRef;
  return parent?.name ? { namespace: parent.namespace ?? '', name: parent.name } : undefined;
}

export function sameService(a: ServiceRef | undefined, b: ServiceRef | undefined): boolean {
  return a !== undefined && b !== undefined && a.namespace === b.namespace && a.name === b.name;
}

/**
 * Picks the first value `take` accepts among `count` values, upper band first (offsets `band` and
 * beyond, from a random one, wrapping), then the lower band: upstream's order for cluster IPs
 * (KEP-3070) and node ports (KEP-3668), which leaves the lower band to values requests name.
 */
export async function pickInBands(
  count: number,
  band: number,
  take: (offset: number) => Promise<boolean>,
): Promise<number | undefined> {
  const parts = [
    { from: Math.min(band, count), count: Math.max(0, count - band) },
    { from: 0, count: Math.min(band, count) },
  ];
  for (const part of parts) {
    const start = Math.floor(Math.random() * part.count);
    for (let step = 0; step < part.count; step++) {
      const offset = part.from + ((start + step) % part.count);
      if (await take(offset)) return offset;
    }
  }
  return undefined;
}
