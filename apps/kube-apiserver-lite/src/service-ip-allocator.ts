import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { Interface } from '@kapi/storage';
import type { RepairedAllocations } from './service-allocation-repair.js';
import {
  ClaimStore,
  parentRefOf,
  parentRefTo,
  pickInBands,
  type Claim,
  type ServiceRef,
} from './service-claims.js';
import { formatIPv4, parseIPv4, usableIn, type ServiceIPRange } from './service-ip-range.js';

export type { ServiceRef } from './service-claims.js';

/** Upstream's label on the IPAddress objects its allocator manages. */
const managedByLabel = 'ipaddress.kubernetes.io/managed-by';
const managedBy = 'ipallocator.k8s.io';

/**
 * Cluster IPs of Services, unique across the cluster and every replica, as upstream's allocator since
 * MultiCIDRServiceAllocator: one networking.k8s.io/v1 IPAddress object per allocated address, named by
 * the address and pointing at its Service, stored under `<prefix>/ipaddresses/`. Creating that object
 * is the allocation (a create fails when another replica or Service holds the address), deleting it
 * the release. Dynamic allocation starts at a random address of the upper band of the range and looks
 * upwards, then the lower band, as upstream's (KEP-3070: the lower band is left to static addresses).
 */
export class ServiceIPAllocator {
  private readonly claims: ClaimStore;

  constructor(
    storage: Interface,
    prefix: string,
    readonly range: ServiceIPRange,
  ) {
    this.claims = new ClaimStore(storage, prefix, ipAddressObject, parentRefOf);
  }

  /**
   * Allocates a free address to `service`. With `dryRun` the address is picked but not kept (a dry-run
   * create shows one). Fails with upstream's internal error when the range is full.
   */
  async allocateNext(service: ServiceRef, dryRun = false): Promise<string> {
    const { base, size } = this.range;
    // Usable addresses are base+1 .. base+size-2; the lower band starts at the network address.
    const address = (offset: number) => formatIPv4(base + 1 + offset);
    const offset = await pickInBands(size - 2, lowerBandSize(size) - 1, (candidate) =>
      this.claims.claimFree(address(candidate), service, dryRun),
    );
    if (offset === undefined) throw StatusError.internal('failed to allocate a serviceIP: range is full');
    return address(offset);
  }

  /**
   * Allocates `ip`, which the request named, to `service`; fails with upstream's 422 when it is not
   * an address of the range or another Service holds it. An address `service` already holds is kept.
   */
  async allocate(ip: string, service: ServiceRef, dryRun = false): Promise<void> {
    const parsed = parseIPv4(ip);
    if (parsed === undefined || !usableIn(this.range, parsed))
      throw allocationFailure(
        service,
        ip,
        `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.range.cidr}`,
      );
    if (!(await this.claims.take(ip, service, dryRun)))
      throw allocationFailure(service, ip, 'provided IP is already allocated');
  }

  /** Releases `ip` when `service` holds it (another holder's address is left alone). */
  release(ip: string, service: ServiceRef): Promise<void> {
    return this.claims.release(ip, service);
  }

  /** The Service holding `ip`, if any. */
  holder(ip: string): Promise<ServiceRef | undefined> {
    return this.claims.holder(ip);
  }

  /** Every allocated address with its Service and when it was allocated. */
  allocations(): Promise<Claim[]> {
    return this.claims.list();
  }

  /** The cluster IPs as {@link ServiceAllocationRepair} repairs them. */
  repaired(): RepairedAllocations {
    return {
      what: 'cluster IP',
      heldBy: (service) => {
        const spec = service['spec'] as { type?: string; clusterIP?: string } | undefined;
        return spec?.clusterIP && spec.clusterIP !== 'None' && spec.type !== 'ExternalName'
          ? [spec.clusterIP]
          : [];
      },
      list: () => this.claims.list(),
      release: (ip, service) => this.claims.release(ip, service),
      restore: (ip, service) => this.allocate(ip, service),
    };
  }
}

/**
 * Upstream's lower band (KEP-3070 ServiceIPStaticSubrange): min(max(16, size/16), 256) addresses at
 * the start of the range, which dynamic allocation uses only once the rest is full.
 */
function lowerBandSize(size: number): number {
  return Math.min(Math.max(16, Math.floor(size / 16)), 256, size);
}

/** The 422 upstream answers when a requested cluster IP cannot be allocated. */
function allocationFailure(service: ServiceRef, ip: string, reason: string): StatusError {
  return StatusError.invalid({ group: '', kind: 'Service' }, service.name, [
    {
      field: 'spec.clusterIPs',
      type: 'FieldValueInvalid',
      value: [ip],
      detail: `failed to allocate IP ${ip}: ${reason}`,
    },
  ]);
}

function ipAddressObject(ip: string, service: ServiceRef, created: string): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name: ip, labels: { [managedByLabel]: managedBy }, creationTimestamp: created },
    ...parentRefTo(service),
  };
}
